"""Static facts about Python source files: where a module lives, which names it defines, what a
function's signature is. Nothing here imports or runs the code it looks at.

The editor opens untrusted repositories, so the grader and function-tool checks must not execute
user code just because a file was opened. Everything in this package is therefore done with
directory listings and `ast`: we mirror what Python's import system would find, and read
top-level definitions the way a reader would, accepting that dynamic tricks can only be
recognised as "anything may exist here" rather than verified.

Columns are 0-based Unicode code points (as the LSP `Position` expects), lines are 0-based.

* `module_search` — finding a module's file from its dotted name, as the import system would
* `parsing` — reading and parsing a file once per version of it
* `bindings` — what a top-level name is bound to (`NameBinding`, `Callability`)
* `value_kinds` — whether an assigned expression's value looks callable
* `binding_scan` — walking the top-level statements, branches merged
* `module_names` — `top_level_names`: a module's names, and when any name may exist
* `signatures` — `function_signature`: a function's parameters as written
"""
