function __lulld_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __lulld_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __lulld_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __lulld_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __lulld_parse_tokens -S
    set -l unparsed_tokens (__lulld_tokens -pc)
    switch $unparsed_tokens[1]
    case 'lulld'
        __lulld_parse_subcommand 0 'config=' 'state-dir=' 'socket=' 'check-config' 'system' 'user' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __lulld_parse_subcommand -r 1 'version'
        end
    end
end

function __lulld_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __lulld_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __lulld_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __lulld_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__lulld_tokens -p)
    if test -z "$(__lulld_tokens -t)"
        set -l index (count (__lulld_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'lulld' -f
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" config' -l 'config' -d 'Read settings from this TOML file.' -rfka ''
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" state-dir' -l 'state-dir' -d 'Keep the job store in this directory.' -rfka ''
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" socket' -l 'socket' -d 'Listen on this Unix socket path.' -rfka ''
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" check-config' -l 'check-config' -d 'Validate the config file the service reads (see --system, --user), print any errors, and exit.'
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" system' -l 'system' -d 'With --check-config: check the system instance\'s /etc/lull/lull.toml (the default for root).'
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" user' -l 'user' -d 'With --check-config: check your user instance\'s ~/.config/lull/lull.toml (the default for others).'
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" version' -l 'version' -d 'Show the version.'
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lulld' -n '__lulld_should_offer_completions_for_positional "lulld" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'lulld' -n '__lulld_should_offer_completions_for_flags_or_options "lulld help" version' -l 'version' -d 'Show the version.'
