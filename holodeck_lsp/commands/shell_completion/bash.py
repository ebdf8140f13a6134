"""The bash completion script (`eval "$(holodeck-lsp completion bash)"` in ~/.bashrc)."""

from __future__ import annotations

from holodeck_lsp.commands.shell_completion.command_table import (
    TOP_OPTIONS,
    Command,
    with_hidden_commands,
)
from holodeck_lsp.commands.shell_completion.lookup_functions import lookup_functions, words

# The fixed part. `_holodeck_lsp_dequote` undoes the shell quoting of a word as typed
# (`a\ b`, 'a b', "a b", ~/) without `eval`: a word on the line is never run. Names come
# NUL-separated and are re-quoted with `printf %q` (or for the open quote being typed), so
# a name like `$(rm -rf ~)` is inserted as text.
_BODY = r"""
_holodeck_lsp_dequote() {
    local w=$1 c q="" i
    REPLY=""
    for (( i = 0; i < ${#w}; i++ )); do
        c=${w:i:1}
        if [[ -n $q ]]; then
            if [[ $c == "$q" ]]; then
                q=""
            elif [[ $q == '"' && $c == '\' ]] && (( i + 1 < ${#w} )); then
                (( i++ )); REPLY+=${w:i:1}
            else
                REPLY+=$c
            fi
        elif [[ $c == "'" || $c == '"' ]]; then
            q=$c
        elif [[ $c == '\' ]]; then
            (( i++ )); REPLY+=${w:i:1}
        else
            REPLY+=$c
        fi
    done
    [[ $REPLY == "~/"* ]] && REPLY=$HOME/${REPLY:2}
}

_holodeck_lsp() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" kind="" i w
    local -a paths=() args=()
    COMPREPLY=()
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    # The subcommand, the paths given so far (words that are no option or option value), and
    # every word after the subcommand (for __RUN_REFS__ and __MODELS__, which read them).
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w=${COMP_WORDS[i]}
        if [[ -z $cmd ]]; then
            [[ $w != -* ]] && cmd=$w
            continue
        fi
        _holodeck_lsp_dequote "$w"
        args+=("$REPLY")
        if [[ $w == -* ]]; then
            _holodeck_lsp_value "$cmd" "$w"
            if [[ -n $REPLY ]] && (( i + 1 < COMP_CWORD )); then
                (( i++ ))
                _holodeck_lsp_dequote "${COMP_WORDS[i]}"
                args+=("$REPLY")
            fi
        else
            paths+=("${args[-1]}")
        fi
    done
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$_holodeck_lsp_top_options" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$_holodeck_lsp_commands" -- "$cur"))
        fi
        return 0
    fi
    # bash splits words at ':' (it is in COMP_WORDBREAKS): `--model openai:gp` arrives as
    # `--model` `openai` `:` `gp`. So the option before a model is found in the line itself.
    if [[ -n ${COMP_LINE+set} ]]; then
        local line=${COMP_LINE:0:COMP_POINT} typed before
        typed=${line##*[[:blank:]]}
        before=${line%"$typed"}
        before=${before%"${before##*[![:blank:]]}"}
        before=${before##*[[:blank:]]}
        _holodeck_lsp_value "$cmd" "$before"
        if [[ $REPLY == model ]]; then
            _holodeck_lsp_models "${COMP_WORDS[0]}" "$typed" "$cmd" "${args[@]}"
            return 0
        fi
    fi
    kind=""
    if [[ $prev == -* ]]; then
        _holodeck_lsp_value "$cmd" "$prev"
        kind=$REPLY
    elif (( COMP_CWORD > 2 )) && [[ ${COMP_WORDS[COMP_CWORD-2]} == -* ]]; then
        # The optional second value of an option (`runs --tag NAME RUN`).
        _holodeck_lsp_then "$cmd" "${COMP_WORDS[COMP_CWORD-2]}"
        kind=$REPLY
    fi
    case $kind in
        case)
            _holodeck_lsp_cases "${COMP_WORDS[0]}" "$cur" "${paths[@]}"
            return 0 ;;
        run|runfile|tag)
            _holodeck_lsp_refs "${COMP_WORDS[0]}" "$kind" "$cur" "$cmd" "${args[@]}"
            return 0 ;;
        model)
            _holodeck_lsp_models "${COMP_WORDS[0]}" "$cur" "$cmd" "${args[@]}"
            return 0 ;;
        file)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return 0 ;;
        text)
            return 0 ;;
        "") ;;
        *)
            COMPREPLY=($(compgen -W "$kind" -- "$cur"))
            return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        _holodeck_lsp_options "$cmd"
        COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
        return 0
    fi
    _holodeck_lsp_positional "$cmd"
    if [[ $REPLY == run || $REPLY == runfile ]]; then
        _holodeck_lsp_refs "${COMP_WORDS[0]}" "$REPLY" "$cur" "$cmd" "${args[@]}"
    elif [[ $REPLY == file ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
    elif [[ -n $REPLY ]]; then
        COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    fi
    return 0
}

# _holodeck_lsp_quote NAME OPEN: NAME quoted for the line in REPLY — escaped on a bare word,
# or for the quote OPEN (' or ") being typed. Not readline's own filename quoting: it leaves
# `)` bare after `$`, so a name like `$(x)` would end the line in a syntax error.
_holodeck_lsp_quote() {
    local name=$1 open=$2
    if [[ $open == "'" ]]; then
        REPLY=${name//\'/\'\\\'\'}
    elif [[ $open == '"' ]]; then
        REPLY=${name//\\/\\\\}; REPLY=${REPLY//\"/\\\"}
        REPLY=${REPLY//\$/\\\$}; REPLY=${REPLY//\`/\\\`}
        # readline takes the escaped quote for the closing one and adds none.
        [[ $name == *'"'* ]] && REPLY+='"'
    else
        printf -v REPLY '%q' "$name"
    fi
}

# _holodeck_lsp_open WORD: the quote WORD opens (' or "), in REPLY; empty for a bare word.
_holodeck_lsp_open() {
    case $1 in
        \'*) REPLY="'" ;;
        \"*) REPLY='"' ;;
        *) REPLY="" ;;
    esac
}

# _holodeck_lsp_cases PROGRAM CURRENT-WORD PATH…: the case names of the agent files at
# PATH… that begin with the word typed so far, quoted the way the word is being typed.
_holodeck_lsp_cases() {
    local program=$1 cur=$2 name open
    shift 2
    (( $# )) || return 0
    _holodeck_lsp_open "$cur"
    open=$REPLY
    _holodeck_lsp_dequote "$cur"
    local typed=$REPLY
    _holodeck_lsp_dequote "$program"
    program=$REPLY
    while IFS= read -r -d '' name; do
        [[ $name == "$typed"* ]] || continue
        _holodeck_lsp_quote "$name" "$open"
        COMPREPLY+=("$REPLY")
    done < <(command "$program" __CASE_NAMES__ -- "$@" 2>/dev/null)
}

# _holodeck_lsp_refs PROGRAM KIND CURRENT-WORD COMMAND WORD…: the stored runs (tags, latest,
# previous, ids; KIND tag: the tags only) the command on this line would read, in that order
# (nosort), then for KIND runfile the files (a folder with its `/`); quoted as case names are.
_holodeck_lsp_refs() {
    local program=$1 kind=$2 cur=$3 name open valued
    shift 3
    _holodeck_lsp_valued "$1"
    valued=$REPLY
    _holodeck_lsp_open "$cur"
    open=$REPLY
    _holodeck_lsp_dequote "$cur"
    local typed=$REPLY
    _holodeck_lsp_dequote "$program"
    program=$REPLY
    compopt -o nosort 2>/dev/null
    while IFS= read -r -d '' name; do
        [[ $name == "$typed"* ]] || continue
        _holodeck_lsp_quote "$name" "$open"
        COMPREPLY+=("$REPLY")
    done < <(command "$program" __RUN_REFS__ --kind "$kind" --valued "$valued" -- "$@" 2>/dev/null)
    [[ $kind == runfile ]] || return 0
    while IFS= read -r name; do
        [[ -d $name ]] && name+=/
        _holodeck_lsp_quote "$name" "$open"
        COMPREPLY+=("$REPLY")
    done < <(compgen -f -- "$typed")
    # A lone folder: no space after it, its files come next.
    [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null
    return 0
}

# _holodeck_lsp_models PROGRAM TYPED COMMAND WORD…: `provider:` and the models of
# holodeck-lsp.yaml beginning with TYPED (the whole `openai:gp`, colon and all). readline
# replaces only the text after the last ':', so that much is cut off each reply; no space
# after a bare `provider:`, the name comes next.
_holodeck_lsp_models() {
    local program=$1 typed=$2 name strip="" valued
    shift 2
    _holodeck_lsp_valued "$1"
    valued=$REPLY
    _holodeck_lsp_dequote "$program"
    program=$REPLY
    [[ $COMP_WORDBREAKS == *:* && $typed == *:* ]] && strip=${typed%"${typed##*:}"}
    compopt -o nosort 2>/dev/null
    while IFS= read -r -d '' name; do
        [[ $name == "$typed"* ]] || continue
        [[ $name == *: ]] && compopt -o nospace 2>/dev/null
        printf -v name '%q' "$name"
        name=${name#"$strip"}
        [[ -n $name ]] && COMPREPLY+=("$name")  # not the `provider:` already typed
    done < <(command "$program" __MODELS__ --valued "$valued" -- "$@" 2>/dev/null)
}
"""


def script(table: tuple[Command, ...]) -> str:
    commands = " ".join(command.name for command in table)
    lines = [
        "# bash completion for holodeck-lsp, written by `holodeck-lsp completion bash`.",
        '# Install: add  eval "$(holodeck-lsp completion bash)"  to ~/.bashrc.',
        f"_holodeck_lsp_commands='{commands}'",
        f"_holodeck_lsp_top_options='{words(TOP_OPTIONS)}'",
        with_hidden_commands(_BODY),
        *lookup_functions(table),
        "complete -F _holodeck_lsp holodeck-lsp",
        "",
    ]
    return "\n".join(lines)
