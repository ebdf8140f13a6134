"""The zsh completion script (`eval "$(holodeck-lsp completion zsh)"` in ~/.zshrc)."""

from __future__ import annotations

from holodeck_lsp.commands.shell_completion.command_table import (
    TOP_OPTIONS,
    Command,
    Option,
    with_hidden_commands,
)
from holodeck_lsp.commands.shell_completion.lookup_functions import lookup_functions

# `compadd` quotes what it inserts for the context being typed (bare, '…' or "…"), so names
# are handed over as data; `${(Q)…}` undoes the quoting of the paths typed, without eval.
_BODY = r"""
_holodeck_lsp() {
    local cmd="" kind="" w i prev=${words[CURRENT-1]}
    # paths: the words that are no option or option value; args: every word after the
    # subcommand, for __RUN_REFS__ and __MODELS__ (they read the line themselves).
    local -a paths names args
    for (( i = 2; i < CURRENT; i++ )); do
        w=${words[i]}
        if [[ -z $cmd ]]; then
            [[ $w != -* ]] && cmd=$w
            continue
        fi
        if [[ $w == -* ]]; then
            args+=("$w")
            _holodeck_lsp_value $cmd $w
            if [[ -n $REPLY ]] && (( i + 1 < CURRENT )); then
                (( i++ ))
                args+=("${(Q)words[i]}")
            fi
        else
            w=${(Q)w}
            [[ $w == "~/"* ]] && w=$HOME/${w#\~/}
            paths+=("$w")
            args+=("$w")
        fi
    done
    if [[ -z $cmd ]]; then
        if [[ $PREFIX == -* ]]; then
            _describe -t options option _holodeck_lsp_top_options
        else
            _describe -t commands command _holodeck_lsp_commands
        fi
        return
    fi
    if [[ $prev == -* ]]; then
        _holodeck_lsp_value $cmd $prev
        kind=$REPLY
    elif (( CURRENT > 3 )) && [[ ${words[CURRENT-2]} == -* ]]; then
        # The optional second value of an option (`runs --tag NAME RUN`).
        _holodeck_lsp_then $cmd ${words[CURRENT-2]}
        kind=$REPLY
    fi
    case $kind in
        case)
            (( ${#paths} )) || return 1
            names=(${(0)"$(command ${(Q)words[1]} __CASE_NAMES__ -- "${paths[@]}" 2>/dev/null)"})
            compadd -J cases -X 'case names' -a names
            return ;;
        run|runfile|tag) _holodeck_lsp_refs $kind; return ;;
        model) _holodeck_lsp_models; return ;;
        file) _files; return ;;
        text) return 1 ;;
        "") ;;
        *) compadd -- ${=kind}; return ;;
    esac
    if [[ $PREFIX == -* ]]; then
        _holodeck_lsp_options $cmd
        compadd -- ${=REPLY}
        return
    fi
    _holodeck_lsp_positional $cmd
    if [[ $REPLY == run || $REPLY == runfile ]]; then
        _holodeck_lsp_refs $REPLY
    elif [[ $REPLY == file ]]; then
        _files
    elif [[ -n $REPLY ]]; then
        compadd -- ${=REPLY}
    fi
}

# _holodeck_lsp_refs KIND (cmd and args are _holodeck_lsp's): the stored runs the command
# would read, each "value<TAB>description" from __RUN_REFS__, shown "value  -- description"
# in the order given (-V: tags, latest, previous, ids newest first); runfile adds the files.
_holodeck_lsp_refs() {
    local -a out values displays
    local record
    local program=${(Q)words[1]} valued
    _holodeck_lsp_valued $cmd
    valued=$REPLY
    out=(${(0)"$(command $program __RUN_REFS__ --kind $1 --valued "$valued" --describe \
        -- $cmd $args 2>/dev/null)"})
    for record in "${out[@]}"; do
        values+=("${record%%$'\t'*}")
        displays+=("${record%%$'\t'*}  -- ${record#*$'\t'}")
    done
    (( ${#values} )) && compadd -V runs -X 'stored runs' -l -d displays -a values
    [[ $1 == runfile ]] && _files
    return 0
}

# _holodeck_lsp_models: `provider:` (no space after: the name follows) and the models of
# holodeck-lsp.yaml, from __MODELS__.
_holodeck_lsp_models() {
    local -a out providers models
    local value valued
    _holodeck_lsp_valued $cmd
    valued=$REPLY
    out=(${(0)"$(command ${(Q)words[1]} __MODELS__ --valued "$valued" \
        -- $cmd "${args[@]}" 2>/dev/null)"})
    for value in "${out[@]}"; do
        if [[ $value == *: ]]; then providers+=("$value"); else models+=("$value"); fi
    done
    compadd -V providers -X providers -S '' -a providers
    compadd -V models -X 'models of holodeck-lsp.yaml' -a models
}
"""


def script(table: tuple[Command, ...]) -> str:
    lines = [
        "#compdef holodeck-lsp",
        "# zsh completion for holodeck-lsp, written by `holodeck-lsp completion zsh`.",
        '# Install: add  eval "$(holodeck-lsp completion zsh)"  to ~/.zshrc (after compinit).',
        f"_holodeck_lsp_commands=({_described(table)})",
        f"_holodeck_lsp_top_options=({_described_options(TOP_OPTIONS)})",
        with_hidden_commands(_BODY),
        *lookup_functions(table),
        "if (( ! $+functions[compdef] )); then",
        "    autoload -Uz compinit && compinit",
        "fi",
        "compdef _holodeck_lsp holodeck-lsp",
        "",
    ]
    return "\n".join(lines)


def _described(commands: tuple[Command, ...]) -> str:
    return " ".join(_quote(f"{command.name}:{command.help}") for command in commands)


def _described_options(options: tuple[Option, ...]) -> str:
    return " ".join(_quote(f"{name}:{option.help}") for option in options for name in option.names)


def _quote(text: str) -> str:
    """`text` as one single-quoted zsh word (the help texts come from the parsers: `agents'`)."""
    return "'" + text.replace("'", "'\\''") + "'"
