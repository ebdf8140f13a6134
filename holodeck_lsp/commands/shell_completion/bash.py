"""The bash completion script (`eval "$(holodeck-lsp completion bash)"` in ~/.bashrc)."""

from __future__ import annotations

from holodeck_lsp.commands.shell_completion.command_table import (
    CASE,
    CASE_NAMES_COMMAND,
    COMMANDS,
    FILE,
    TEXT,
    TOP_OPTIONS,
    Option,
)

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
    local -a paths=()
    COMPREPLY=()
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    # The subcommand, and the paths given so far (words that are no option or option value).
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w=${COMP_WORDS[i]}
        if [[ -z $cmd ]]; then
            [[ $w != -* ]] && cmd=$w
            continue
        fi
        if [[ $w == -* ]]; then
            _holodeck_lsp_value "$cmd" "$w"
            [[ -n $REPLY ]] && (( i++ ))
        else
            _holodeck_lsp_dequote "$w"
            paths+=("$REPLY")
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
    kind=""
    [[ $prev == -* ]] && { _holodeck_lsp_value "$cmd" "$prev"; kind=$REPLY; }
    case $kind in
        case)
            _holodeck_lsp_cases "${COMP_WORDS[0]}" "$cur" "${paths[@]}"
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
    if [[ $REPLY == file ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
    elif [[ -n $REPLY ]]; then
        COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    fi
    return 0
}

# _holodeck_lsp_cases PROGRAM CURRENT-WORD PATH…: the case names of the agent files at
# PATH… that begin with the word typed so far, quoted the way the word is being typed.
_holodeck_lsp_cases() {
    local program=$1 cur=$2 name quoted open=""
    shift 2
    (( $# )) || return 0
    case $cur in
        \'*) open="'" ;;
        \"*) open='"' ;;
    esac
    _holodeck_lsp_dequote "$cur"
    local typed=$REPLY
    _holodeck_lsp_dequote "$program"
    program=$REPLY
    while IFS= read -r -d '' name; do
        [[ $name == "$typed"* ]] || continue
        if [[ $open == "'" ]]; then
            quoted=${name//\'/\'\\\'\'}
        elif [[ $open == '"' ]]; then
            quoted=${name//\\/\\\\}; quoted=${quoted//\"/\\\"}
            quoted=${quoted//\$/\\\$}; quoted=${quoted//\`/\\\`}
            # readline takes the escaped quote for the closing one and adds none.
            [[ $name == *'"'* ]] && quoted+='"'
        else
            printf -v quoted '%q' "$name"
        fi
        COMPREPLY+=("$quoted")
    done < <(command "$program" __CASE_NAMES__ -- "$@" 2>/dev/null)
}
"""


def script() -> str:
    commands = " ".join(command.name for command in COMMANDS)
    lines = [
        "# bash completion for holodeck-lsp, written by `holodeck-lsp completion bash`.",
        '# Install: add  eval "$(holodeck-lsp completion bash)"  to ~/.bashrc.',
        f"_holodeck_lsp_commands='{commands}'",
        f"_holodeck_lsp_top_options='{_words(TOP_OPTIONS)}'",
        _BODY.replace("__CASE_NAMES__", CASE_NAMES_COMMAND),
        "# _holodeck_lsp_value COMMAND OPTION: what the option's value is, in REPLY",
        "# (file, case, text, the choices; empty for a flag).",
        "_holodeck_lsp_value() {",
        '    case "$1 $2" in',
    ]
    for command in COMMANDS:
        for option in command.options:
            if option.value is not None:
                pattern = "|".join(f'"{command.name} {name}"' for name in option.names)
                lines.append(f"        {pattern}) REPLY='{_kind(option.value)}' ;;")
    lines += [
        "        *) REPLY='' ;;",
        "    esac",
        "}",
        "_holodeck_lsp_options() {",
        "    case $1 in",
    ]
    for command in COMMANDS:
        lines.append(f"        {command.name}) REPLY='{_words(command.options)}' ;;")
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
        "complete -F _holodeck_lsp holodeck-lsp",
        "",
    ]
    return "\n".join(lines)


def _words(options: tuple[Option, ...]) -> str:
    return " ".join(name for option in options for name in option.names)


def _kind(value: str | tuple[str, ...]) -> str:
    if isinstance(value, tuple):
        return " ".join(value)
    assert value in (FILE, CASE, TEXT)
    return value
