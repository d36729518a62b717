#!/bin/bash

__lullctl_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__lullctl_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__lullctl_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__lullctl_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_lullctl() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __lullctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    submit|list|show|explain|simulate|cancel|pause|resume|status|events|watch|top|reload|logs|help)
        # Offer subcommand argument completions
        "_lullctl_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'submit list show explain simulate cancel pause resume status events watch top reload logs help' -- "${cur}"))
        ;;
    esac
}

_lullctl_submit() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __lullctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    fetch|push|upload|run)
        # Offer subcommand argument completions
        "_lullctl_submit_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'fetch push upload run' -- "${cur}"))
        ;;
    esac
}

_lullctl_submit_fetch() {
    repeating_flags=()
    non_repeating_flags=(--requires-ac --requires-idle --system --user-instance --json --version -h --help)
    repeating_options=(-H --header)
    non_repeating_options=(-o --output --sha256 --expected-size --max-size --mode --label --class -u --user --ca-file --network --min-battery --not-before --deadline --on-deadline --every --flex --jitter --max-every --on-complete-unit --max-attempts --retry-delay --retry-max-delay --connect-timeout --idle-timeout --timeout --max-rate --socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    '--sha256')
        return
        ;;
    '--expected-size')
        return
        ;;
    '--max-size')
        return
        ;;
    '--mode')
        return
        ;;
    '--label')
        return
        ;;
    '--class')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--network')
        __lullctl_add_completions -W 'any'$'\n''unmetered'$'\n''not_cellular'$'\n''none'
        return
        ;;
    '--min-battery')
        return
        ;;
    '--not-before')
        return
        ;;
    '--deadline')
        return
        ;;
    '--on-deadline')
        __lullctl_add_completions -W 'run'$'\n''expire'
        return
        ;;
    '--every')
        return
        ;;
    '--flex')
        return
        ;;
    '--jitter')
        return
        ;;
    '--max-every')
        return
        ;;
    '--on-complete-unit')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--retry-max-delay')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_submit_push() {
    repeating_flags=()
    non_repeating_flags=(--requires-ac --requires-idle --system --user-instance --json --version -h --help)
    repeating_options=(-H --header)
    non_repeating_options=(-d --data --data-file -X --method --content-type --idempotency-key --label --class -u --user --ca-file --network --min-battery --not-before --deadline --on-deadline --every --flex --jitter --max-every --on-complete-unit --max-attempts --retry-delay --retry-max-delay --connect-timeout --idle-timeout --timeout --max-rate --socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-d'|'--data')
        return
        ;;
    '--data-file')
        return
        ;;
    '-X'|'--method')
        return
        ;;
    '--content-type')
        return
        ;;
    '--idempotency-key')
        return
        ;;
    '--label')
        return
        ;;
    '--class')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--network')
        __lullctl_add_completions -W 'any'$'\n''unmetered'$'\n''not_cellular'$'\n''none'
        return
        ;;
    '--min-battery')
        return
        ;;
    '--not-before')
        return
        ;;
    '--deadline')
        return
        ;;
    '--on-deadline')
        __lullctl_add_completions -W 'run'$'\n''expire'
        return
        ;;
    '--every')
        return
        ;;
    '--flex')
        return
        ;;
    '--jitter')
        return
        ;;
    '--max-every')
        return
        ;;
    '--on-complete-unit')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--retry-max-delay')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_submit_upload() {
    repeating_flags=()
    non_repeating_flags=(--requires-ac --requires-idle --system --user-instance --json --version -h --help)
    repeating_options=(-H --header)
    non_repeating_options=(-f --file -X --method --protocol --form-field --content-type --chunk-size --label --class -u --user --ca-file --network --min-battery --not-before --deadline --on-deadline --every --flex --jitter --max-every --on-complete-unit --max-attempts --retry-delay --retry-max-delay --connect-timeout --idle-timeout --timeout --max-rate --socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-f'|'--file')
        return
        ;;
    '-X'|'--method')
        return
        ;;
    '--protocol')
        __lullctl_add_completions -W 'raw'$'\n''multipart'$'\n''tus'
        return
        ;;
    '--form-field')
        return
        ;;
    '--content-type')
        return
        ;;
    '--chunk-size')
        return
        ;;
    '--label')
        return
        ;;
    '--class')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--network')
        __lullctl_add_completions -W 'any'$'\n''unmetered'$'\n''not_cellular'$'\n''none'
        return
        ;;
    '--min-battery')
        return
        ;;
    '--not-before')
        return
        ;;
    '--deadline')
        return
        ;;
    '--on-deadline')
        __lullctl_add_completions -W 'run'$'\n''expire'
        return
        ;;
    '--every')
        return
        ;;
    '--flex')
        return
        ;;
    '--jitter')
        return
        ;;
    '--max-every')
        return
        ;;
    '--on-complete-unit')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--retry-max-delay')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_submit_run() {
    repeating_flags=()
    non_repeating_flags=(--requires-ac --requires-idle --system --user-instance --json --version -h --help)
    repeating_options=(--env --retry-exit-code)
    non_repeating_options=(--cwd --stop-grace --nice --cpu-weight --memory-max --io-weight --tasks-max --output-tail --unit --label --class --network --min-battery --not-before --deadline --on-deadline --every --flex --jitter --max-every --on-complete-unit --max-attempts --retry-delay --retry-max-delay --connect-timeout --idle-timeout --timeout --max-rate --socket --call-timeout)
    __lullctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--env')
        return
        ;;
    '--cwd')
        __lullctl_add_completions -d
        return
        ;;
    '--retry-exit-code')
        return
        ;;
    '--stop-grace')
        return
        ;;
    '--nice')
        return
        ;;
    '--cpu-weight')
        return
        ;;
    '--memory-max')
        return
        ;;
    '--io-weight')
        return
        ;;
    '--tasks-max')
        return
        ;;
    '--output-tail')
        return
        ;;
    '--unit')
        return
        ;;
    '--label')
        return
        ;;
    '--class')
        return
        ;;
    '--network')
        __lullctl_add_completions -W 'any'$'\n''unmetered'$'\n''not_cellular'$'\n''none'
        return
        ;;
    '--min-battery')
        return
        ;;
    '--not-before')
        return
        ;;
    '--deadline')
        return
        ;;
    '--on-deadline')
        __lullctl_add_completions -W 'run'$'\n''expire'
        return
        ;;
    '--every')
        return
        ;;
    '--flex')
        return
        ;;
    '--jitter')
        return
        ;;
    '--max-every')
        return
        ;;
    '--on-complete-unit')
        return
        ;;
    '--max-attempts')
        return
        ;;
    '--retry-delay')
        return
        ;;
    '--retry-max-delay')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--timeout')
        return
        ;;
    '--max-rate')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_list() {
    repeating_flags=()
    non_repeating_flags=(--all --system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--state --label --class --owner --limit --after --socket --call-timeout)
    __lullctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--state')
        return
        ;;
    '--label')
        return
        ;;
    '--class')
        return
        ;;
    '--owner')
        return
        ;;
    '--limit')
        return
        ;;
    '--after')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_show() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_explain() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_simulate() {
    repeating_flags=()
    non_repeating_flags=(--on-battery --on-ac --metered --cellular --offline --idle --user-active --system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--battery --cpu-pressure --memory-pressure --socket --call-timeout)
    __lullctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--battery')
        return
        ;;
    '--cpu-pressure')
        return
        ;;
    '--memory-pressure')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_cancel() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_pause() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_resume() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_status() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_events() {
    repeating_flags=()
    non_repeating_flags=(-f --follow --system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--after --reconnect-for --socket --call-timeout)
    __lullctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--after')
        return
        ;;
    '--reconnect-for')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_watch() {
    repeating_flags=()
    non_repeating_flags=(--plain --system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--label --reconnect-for --socket --call-timeout)
    __lullctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--label')
        return
        ;;
    '--reconnect-for')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_top() {
    repeating_flags=()
    non_repeating_flags=(--once --system --user-instance --version -h --help)
    repeating_options=()
    non_repeating_options=(--interval --socket --call-timeout)
    __lullctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--interval')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_reload() {
    repeating_flags=()
    non_repeating_flags=(--system --user-instance --json --version -h --help)
    repeating_options=()
    non_repeating_options=(--socket --call-timeout)
    __lullctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_logs() {
    repeating_flags=()
    non_repeating_flags=(-f --follow --system --user-instance --version -h --help)
    repeating_options=()
    non_repeating_options=(--interval --socket --call-timeout)
    __lullctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--interval')
        return
        ;;
    '--socket')
        return
        ;;
    '--call-timeout')
        return
        ;;
    esac
}

_lullctl_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __lullctl_offer_flags_options -1
}

complete -o filenames -F _lullctl lullctl
