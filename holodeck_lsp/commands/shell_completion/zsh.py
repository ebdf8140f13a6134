"""The zsh completion script (`eval "$(holodeck-lsp completion zsh)"` in ~/.zshrc)."""

from __future__ import annotations

from holodeck_lsp.commands.shell_completion.command_table import (
    CASE,
    CASE_NAMES_COMMAND,
    COMMANDS,
    FILE,
    TEXT,
    TOP_OPTIONS,
    Command,
    Option,
)

# `compadd` quotes what it inserts for the context being typed (bare, '…' or "…"), so names
# are handed over as data; `${(Q)…}` undoes the quoting of the paths typed, without eval.
_BODY = r"""
_holodeck_lsp() {
    local cmd="" kind="" w i prev=${words[CURRENT-1]}
    local -a paths names
    for (( i = 2; i < CURRENT; i++ )); do
        w=${words[i]}
        if [[ -z $cmd ]]; then
            [[ $w != -* ]] && cmd=$w
            continue
        fi
        if [[ $w == -* ]]; then
            _holodeck_lsp_value $cmd $w
            [[ -n $REPLY ]] && (( i++ ))
        else
            w=${(Q)w}
            [[ $w == "~/"* ]] && w=$HOME/${w#\~/}
            paths+=("$w")
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
    [[ $prev == -* ]] && _holodeck_lsp_value $cmd $prev
    [[ $prev == -* ]] && kind=$REPLY
    case $kind in
        case)
            (( ${#paths} )) || return 1
            names=(${(0)"$(command ${(Q)words[1]} __CASE_NAMES__ -- "${paths[@]}" 2>/dev/null)"})
            compadd -J cases -X 'case names' -a names
            return ;;
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
    if [[ $REPLY == file ]]; then
        _files
    elif [[ -n $REPLY ]]; then
        compadd -- ${=REPLY}
    fi
}
"""


def script() -> str:
    lines = [
        "#compdef holodeck-lsp",
        "# zsh completion for holodeck-lsp, written by `holodeck-lsp completion zsh`.",
        '# Install: add  eval "$(holodeck-lsp completion zsh)"  to ~/.zshrc (after compinit).',
        f"_holodeck_lsp_commands=({_described(COMMANDS)})",
        f"_holodeck_lsp_top_options=({_described_options(TOP_OPTIONS)})",
        _BODY.replace("__CASE_NAMES__", CASE_NAMES_COMMAND),
        "_holodeck_lsp_value() {",
        '    case "$1 $2" in',
    ]
    for command in COMMANDS:
        for option in command.options:
            if option.value is not None:
                pattern = "|".join(f"'{command.name} {name}'" for name in option.names)
                lines.append(f"        {pattern}) REPLY='{_kind(option.value)}' ;;")
    lines += [
        "        *) REPLY='' ;;",
        "    esac",
        "}",
        "_holodeck_lsp_options() {",
        "    case $1 in",
    ]
    for command in COMMANDS:
        names = " ".join(name for option in command.options for name in option.names)
        lines.append(f"        {command.name}) REPLY='{names}' ;;")
    lines += [
        "        *) REPLY='' ;;",
        "    esac",
        "}",
        "_holodeck_lsp_positional() {",
        "    case $1 in",
    ]
    for command in COMMANDS:
        if command.positional is not None:
            lines.append(f"        {command.name}) REPLY='{_kind(command.positional)}' ;;")
    lines += [
        "        *) REPLY='' ;;",
        "    esac",
        "}",
        "if (( ! $+functions[compdef] )); then",
        "    autoload -Uz compinit && compinit",
        "fi",
        "compdef _holodeck_lsp holodeck-lsp",
        "",
    ]
    return "\n".join(lines)


def _described(commands: tuple[Command, ...]) -> str:
    return " ".join(f"'{command.name}:{command.help}'" for command in commands)


def _described_options(options: tuple[Option, ...]) -> str:
    return " ".join(f"'{name}:{option.help}'" for option in options for name in option.names)


def _kind(value: str | tuple[str, ...]) -> str:
    if isinstance(value, tuple):
        return " ".join(value)
    assert value in (FILE, CASE, TEXT)
    return value
