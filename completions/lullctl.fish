function __lullctl_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __lullctl_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __lullctl_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __lullctl_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __lullctl_parse_tokens -S
    set -l unparsed_tokens (__lullctl_tokens -pc)
    switch $unparsed_tokens[1]
    case 'lullctl'
        __lullctl_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'submit'
            __lullctl_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'fetch'
                __lullctl_parse_subcommand 1 'o/output=' 'sha256=' 'expected-size=' 'max-size=' 'mode=' 'label=' 'class=' 'H/header=+' 'u/user=' 'ca-file=' 'network=' 'requires-ac' 'requires-idle' 'min-battery=' 'not-before=' 'deadline=' 'on-deadline=' 'every=' 'flex=' 'jitter=' 'max-every=' 'on-complete-unit=' 'max-attempts=' 'retry-delay=' 'retry-max-delay=' 'connect-timeout=' 'idle-timeout=' 'timeout=' 'max-rate=' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
            case 'push'
                __lullctl_parse_subcommand 1 'd/data=' 'data-file=' 'X/method=' 'content-type=' 'idempotency-key=' 'label=' 'class=' 'H/header=+' 'u/user=' 'ca-file=' 'network=' 'requires-ac' 'requires-idle' 'min-battery=' 'not-before=' 'deadline=' 'on-deadline=' 'every=' 'flex=' 'jitter=' 'max-every=' 'on-complete-unit=' 'max-attempts=' 'retry-delay=' 'retry-max-delay=' 'connect-timeout=' 'idle-timeout=' 'timeout=' 'max-rate=' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
            case 'upload'
                __lullctl_parse_subcommand 1 'f/file=' 'X/method=' 'protocol=' 'form-field=' 'content-type=' 'chunk-size=' 'label=' 'class=' 'H/header=+' 'u/user=' 'ca-file=' 'network=' 'requires-ac' 'requires-idle' 'min-battery=' 'not-before=' 'deadline=' 'on-deadline=' 'every=' 'flex=' 'jitter=' 'max-every=' 'on-complete-unit=' 'max-attempts=' 'retry-delay=' 'retry-max-delay=' 'connect-timeout=' 'idle-timeout=' 'timeout=' 'max-rate=' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
            end
        case 'list'
            __lullctl_parse_subcommand 0 'state=' 'label=' 'class=' 'owner=' 'limit=' 'after=' 'all' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'show'
            __lullctl_parse_subcommand 1 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'explain'
            __lullctl_parse_subcommand 1 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'simulate'
            __lullctl_parse_subcommand 0 'on-battery' 'on-ac' 'battery=' 'metered' 'cellular' 'offline' 'cpu-pressure=' 'memory-pressure=' 'idle' 'user-active' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'cancel'
            __lullctl_parse_subcommand 1 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'pause'
            __lullctl_parse_subcommand 1 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'resume'
            __lullctl_parse_subcommand 1 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'status'
            __lullctl_parse_subcommand 0 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'events'
            __lullctl_parse_subcommand 0 'after=' 'f/follow' 'reconnect-for=' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'watch'
            __lullctl_parse_subcommand -r 1 'label=' 'plain' 'reconnect-for=' 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'top'
            __lullctl_parse_subcommand 0 'interval=' 'once' 'socket=' 'system' 'user-instance' 'call-timeout=' 'version' 'h/help'
        case 'reload'
            __lullctl_parse_subcommand 0 'socket=' 'system' 'user-instance' 'call-timeout=' 'json' 'version' 'h/help'
        case 'help'
            __lullctl_parse_subcommand -r 1 'version'
        end
    end
end

function __lullctl_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __lullctl_parse_subcommand -S -a positional_count
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

function __lullctl_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __lullctl_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__lullctl_tokens -p)
    if test -z "$(__lullctl_tokens -t)"
        set -l index (count (__lullctl_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'lullctl' -f
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'submit' -d 'Hand a transfer to the daemon and return at once.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'list' -d 'List jobs, oldest first.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'show' -d 'Show one job in full.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'explain' -d 'Say in plain words why a job is or is not running, citing the rule that holds it.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'simulate' -d 'Evaluate the queue against a hypothetical world and say what would run and what would wait.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'cancel' -d 'Cancel a queued, running or paused job.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'pause' -d 'Hold a job until it is resumed.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'resume' -d 'Put a paused job back in the queue.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'status' -d 'Show the daemon\'s state and job counts.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'events' -d 'Print job events after a cursor; --follow keeps printing new ones.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'watch' -d 'Follow jobs live until they end: progress bars, rates, time left, states.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'top' -d 'A full-screen view of the daemon and the machine: world, CPU and memory, running jobs, the queue, failures.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'reload' -d 'Make the daemon read its config file again; fails, naming file:line, when it refuses it.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl submit" -eq 1' -fa 'fetch' -d 'Download a URL into a file.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl submit" -eq 1' -fa 'push' -d 'Send a small payload.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_positional "lullctl submit" -eq 1' -fa 'upload' -d 'Send a file.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" o output' -s 'o' -l 'output' -d 'Where the file goes.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" sha256' -l 'sha256' -d 'The file\'s SHA-256 (64 hexadecimal characters): a download that does not match fails and is not kept.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" expected-size' -l 'expected-size' -d 'The size you expect, for scheduling on metered links and for progress: a number of bytes, or one with a unit K, M, G or T (powers of 1024), such as 4096, 512K or 10M.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" max-size' -l 'max-size' -d 'Fail the download if the file grows larger than this: a number of bytes, or one with a unit K, M, G or T (powers of 1024), such as 4096, 512K or 10M.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" mode' -l 'mode' -d 'The file\'s permission bits in octal, such as 0640 (default: 0666 less your umask, as curl -o would give).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" label' -l 'label' -d 'A label to find the job by later.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" class' -l 'class' -d 'The priority class (interactive, default, utility, background, maintenance).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch"' -s 'H' -l 'header' -d 'An extra request header, \'Name: value\'.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" u user' -s 'u' -l 'user' -d 'Credentials for the server, sent as HTTP Basic authentication, as curl -u does (a URL may not carry them: it is shown in every view and log line). With a name alone the password comes from LULL_PASSWORD or is asked for; name:password works too, but other local users can read it in the process list while lullctl runs.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" ca-file' -l 'ca-file' -d 'A PEM file of certificate authorities to trust for this job besides the system\'s (a server with a private or self-signed certificate); read with your rights.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" network' -l 'network' -d 'Run only on such a link: any (what the class allows), unmetered (neither metered nor cellular) or not_cellular.' -rfka 'any unmetered not_cellular'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" requires-ac' -l 'requires-ac' -d 'Wait for AC power: never start on battery.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" requires-idle' -l 'requires-idle' -d 'Wait until nobody has used the machine for a while (logind idle for the daemon\'s idle_after).'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" min-battery' -l 'min-battery' -d 'On battery, wait for at least this charge: a percentage from 0 to 100, such as 30 or 30%.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" not-before' -l 'not-before' -d 'Do not start before this time: an ISO-8601 time with a zone, such as 2026-11-21T18:00:00Z or 2026-11-21T19:00:00+01:00, or a duration from now, such as 90s, 30m, 2h or 1d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" deadline' -l 'deadline' -d 'If the job still waits at this time, start it despite battery, metered or cellular links, pressure and windows (--on-deadline run), or end it expired (--on-deadline expire). A time as for --not-before.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" on-deadline' -l 'on-deadline' -d 'What --deadline does: run (the default) or expire.' -rfka 'run expire'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" every' -l 'every' -d 'Make the job periodic: after each run a new occurrence is due this long after it ended, from 15m to 366d (a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" flex' -l 'flex' -d 'With --every: how long before each occurrence is due it may start (the daemon uses at least 5m and 5% of the period).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" jitter' -l 'jitter' -d 'With --every: the largest shift of each due time, so jobs submitted together do not all wake at once.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" max-every' -l 'max-every' -d 'With --every: a fetch that finds nothing new (304) doubles the period, up to this; without it the period never stretches.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" on-complete-unit' -l 'on-complete-unit' -d 'A systemd unit to start when the job ends, such as sync-done.service.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" max-attempts' -l 'max-attempts' -d 'Give up after this many attempts, from 1 to 100 (the first attempt counts).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" retry-delay' -l 'retry-delay' -d 'The backoff scale: a retry waits a random time up to this, doubled after each failed attempt (a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" retry-max-delay' -l 'retry-max-delay' -d 'The most a retry waits (a server\'s Retry-After may ask for longer), at most 1d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" connect-timeout' -l 'connect-timeout' -d 'How long one attempt may take to connect to the server (or proxy), at most 30d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" idle-timeout' -l 'idle-timeout' -d 'How long one attempt may go without a byte moving, at most 30d (while waiting for a response, the daemon\'s idle_timeout applies if shorter).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" timeout' -l 'timeout' -d 'How long one attempt may take in all, at most 30d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" max-rate' -l 'max-rate' -d 'The most bytes per second the job moves, down and up (its class\'s and the daemon\'s limits apply too): a number of bytes, or one with a unit K, M or G, binary (powers of 1024: 2M is 2 MiB/s), from 1K to 1T.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit fetch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" d data' -s 'd' -l 'data' -d 'The payload, as text; @FILE reads it from a file and @- from standard input, as curl -d does.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" data-file' -l 'data-file' -d 'Read the payload from this file; its content type follows from the extension (.json, .txt, .xml, .csv, .html, …) unless --content-type says it.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" X method' -s 'X' -l 'method' -d 'POST, PUT or PATCH.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" content-type' -l 'content-type' -d 'The payload\'s content type.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" idempotency-key' -l 'idempotency-key' -d 'Sent as Idempotency-Key with every attempt, so the server can tell a retry from a new request (the daemon makes one up when you give none).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" label' -l 'label' -d 'A label to find the job by later.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" class' -l 'class' -d 'The priority class (interactive, default, utility, background, maintenance).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push"' -s 'H' -l 'header' -d 'An extra request header, \'Name: value\'.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" u user' -s 'u' -l 'user' -d 'Credentials for the server, sent as HTTP Basic authentication, as curl -u does (a URL may not carry them: it is shown in every view and log line). With a name alone the password comes from LULL_PASSWORD or is asked for; name:password works too, but other local users can read it in the process list while lullctl runs.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" ca-file' -l 'ca-file' -d 'A PEM file of certificate authorities to trust for this job besides the system\'s (a server with a private or self-signed certificate); read with your rights.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" network' -l 'network' -d 'Run only on such a link: any (what the class allows), unmetered (neither metered nor cellular) or not_cellular.' -rfka 'any unmetered not_cellular'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" requires-ac' -l 'requires-ac' -d 'Wait for AC power: never start on battery.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" requires-idle' -l 'requires-idle' -d 'Wait until nobody has used the machine for a while (logind idle for the daemon\'s idle_after).'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" min-battery' -l 'min-battery' -d 'On battery, wait for at least this charge: a percentage from 0 to 100, such as 30 or 30%.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" not-before' -l 'not-before' -d 'Do not start before this time: an ISO-8601 time with a zone, such as 2026-11-21T18:00:00Z or 2026-11-21T19:00:00+01:00, or a duration from now, such as 90s, 30m, 2h or 1d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" deadline' -l 'deadline' -d 'If the job still waits at this time, start it despite battery, metered or cellular links, pressure and windows (--on-deadline run), or end it expired (--on-deadline expire). A time as for --not-before.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" on-deadline' -l 'on-deadline' -d 'What --deadline does: run (the default) or expire.' -rfka 'run expire'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" every' -l 'every' -d 'Make the job periodic: after each run a new occurrence is due this long after it ended, from 15m to 366d (a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" flex' -l 'flex' -d 'With --every: how long before each occurrence is due it may start (the daemon uses at least 5m and 5% of the period).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" jitter' -l 'jitter' -d 'With --every: the largest shift of each due time, so jobs submitted together do not all wake at once.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" max-every' -l 'max-every' -d 'With --every: a fetch that finds nothing new (304) doubles the period, up to this; without it the period never stretches.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" on-complete-unit' -l 'on-complete-unit' -d 'A systemd unit to start when the job ends, such as sync-done.service.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" max-attempts' -l 'max-attempts' -d 'Give up after this many attempts, from 1 to 100 (the first attempt counts).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" retry-delay' -l 'retry-delay' -d 'The backoff scale: a retry waits a random time up to this, doubled after each failed attempt (a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" retry-max-delay' -l 'retry-max-delay' -d 'The most a retry waits (a server\'s Retry-After may ask for longer), at most 1d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" connect-timeout' -l 'connect-timeout' -d 'How long one attempt may take to connect to the server (or proxy), at most 30d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" idle-timeout' -l 'idle-timeout' -d 'How long one attempt may go without a byte moving, at most 30d (while waiting for a response, the daemon\'s idle_timeout applies if shorter).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" timeout' -l 'timeout' -d 'How long one attempt may take in all, at most 30d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" max-rate' -l 'max-rate' -d 'The most bytes per second the job moves, down and up (its class\'s and the daemon\'s limits apply too): a number of bytes, or one with a unit K, M or G, binary (powers of 1024: 2M is 2 MiB/s), from 1K to 1T.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit push" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" f file' -s 'f' -l 'file' -d 'The file to send.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" X method' -s 'X' -l 'method' -d 'PUT or POST (raw and multipart uploads).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" protocol' -l 'protocol' -d 'raw (the file is the request body, the default), multipart (one part of a form POST) or tus (resumable: an interrupted upload goes on where it stopped).' -rfka 'raw multipart tus'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" form-field' -l 'form-field' -d 'With --protocol multipart: the form field\'s name (default file).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" content-type' -l 'content-type' -d 'The file\'s content type (for multipart, application/octet-stream when left out).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" chunk-size' -l 'chunk-size' -d 'With --protocol tus: the most one request sends, from 64K to 1T (default: the daemon\'s tus_chunk_bytes); a server that refuses a request as too large gets smaller ones anyway: a number of bytes, or one with a unit K, M, G or T (powers of 1024), such as 4096, 512K or 10M.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" label' -l 'label' -d 'A label to find the job by later.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" class' -l 'class' -d 'The priority class (interactive, default, utility, background, maintenance).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload"' -s 'H' -l 'header' -d 'An extra request header, \'Name: value\'.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" u user' -s 'u' -l 'user' -d 'Credentials for the server, sent as HTTP Basic authentication, as curl -u does (a URL may not carry them: it is shown in every view and log line). With a name alone the password comes from LULL_PASSWORD or is asked for; name:password works too, but other local users can read it in the process list while lullctl runs.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" ca-file' -l 'ca-file' -d 'A PEM file of certificate authorities to trust for this job besides the system\'s (a server with a private or self-signed certificate); read with your rights.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" network' -l 'network' -d 'Run only on such a link: any (what the class allows), unmetered (neither metered nor cellular) or not_cellular.' -rfka 'any unmetered not_cellular'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" requires-ac' -l 'requires-ac' -d 'Wait for AC power: never start on battery.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" requires-idle' -l 'requires-idle' -d 'Wait until nobody has used the machine for a while (logind idle for the daemon\'s idle_after).'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" min-battery' -l 'min-battery' -d 'On battery, wait for at least this charge: a percentage from 0 to 100, such as 30 or 30%.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" not-before' -l 'not-before' -d 'Do not start before this time: an ISO-8601 time with a zone, such as 2026-11-21T18:00:00Z or 2026-11-21T19:00:00+01:00, or a duration from now, such as 90s, 30m, 2h or 1d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" deadline' -l 'deadline' -d 'If the job still waits at this time, start it despite battery, metered or cellular links, pressure and windows (--on-deadline run), or end it expired (--on-deadline expire). A time as for --not-before.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" on-deadline' -l 'on-deadline' -d 'What --deadline does: run (the default) or expire.' -rfka 'run expire'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" every' -l 'every' -d 'Make the job periodic: after each run a new occurrence is due this long after it ended, from 15m to 366d (a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" flex' -l 'flex' -d 'With --every: how long before each occurrence is due it may start (the daemon uses at least 5m and 5% of the period).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" jitter' -l 'jitter' -d 'With --every: the largest shift of each due time, so jobs submitted together do not all wake at once.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" max-every' -l 'max-every' -d 'With --every: a fetch that finds nothing new (304) doubles the period, up to this; without it the period never stretches.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" on-complete-unit' -l 'on-complete-unit' -d 'A systemd unit to start when the job ends, such as sync-done.service.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" max-attempts' -l 'max-attempts' -d 'Give up after this many attempts, from 1 to 100 (the first attempt counts).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" retry-delay' -l 'retry-delay' -d 'The backoff scale: a retry waits a random time up to this, doubled after each failed attempt (a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" retry-max-delay' -l 'retry-max-delay' -d 'The most a retry waits (a server\'s Retry-After may ask for longer), at most 1d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" connect-timeout' -l 'connect-timeout' -d 'How long one attempt may take to connect to the server (or proxy), at most 30d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" idle-timeout' -l 'idle-timeout' -d 'How long one attempt may go without a byte moving, at most 30d (while waiting for a response, the daemon\'s idle_timeout applies if shorter).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" timeout' -l 'timeout' -d 'How long one attempt may take in all, at most 30d.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" max-rate' -l 'max-rate' -d 'The most bytes per second the job moves, down and up (its class\'s and the daemon\'s limits apply too): a number of bytes, or one with a unit K, M or G, binary (powers of 1024: 2M is 2 MiB/s), from 1K to 1T.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl submit upload" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" state' -l 'state' -d 'Only jobs in this state (queued, running, paused, succeeded, failed, cancelled, expired).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" label' -l 'label' -d 'Only jobs with this label.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" class' -l 'class' -d 'Only jobs of this class.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" owner' -l 'owner' -d 'Only jobs of this user, by name or uid. Root may name anyone; other users only themselves (they see only their own jobs anyway).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" limit' -l 'limit' -d 'At most this many jobs (1-1000).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" after' -l 'after' -d 'Start after this job id (paging).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" all' -l 'all' -d 'Follow pages until every matching job is listed.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl explain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" on-battery' -l 'on-battery' -d 'Pretend the machine runs on battery.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" on-ac' -l 'on-ac' -d 'Pretend the machine is plugged in.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" battery' -l 'battery' -d 'Battery charge in percent.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" metered' -l 'metered' -d 'Pretend the link is metered.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" cellular' -l 'cellular' -d 'Pretend the link is cellular.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" offline' -l 'offline' -d 'Pretend the machine is offline.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" cpu-pressure' -l 'cpu-pressure' -d 'CPU pressure (PSI some avg10, percent).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" memory-pressure' -l 'memory-pressure' -d 'Memory pressure (percent).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" idle' -l 'idle' -d 'Pretend nobody has used the machine for long.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" user-active' -l 'user-active' -d 'Pretend someone uses the machine.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl simulate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl cancel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl pause" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" after' -l 'after' -d 'Print events with a sequence number above this.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" f follow' -s 'f' -l 'follow' -d 'Keep running and print new events as they happen.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" reconnect-for' -l 'reconnect-for' -d 'Seconds to wait for a daemon that stopped answering before giving up with exit 3 (1-3600).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl events" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" label' -l 'label' -d 'Watch every unfinished job with this label.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" plain' -l 'plain' -d 'Print plain lines even on a terminal.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" reconnect-for' -l 'reconnect-for' -d 'Seconds to wait for a daemon that stopped answering before giving up with exit 3 (1-3600).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" json' -l 'json' -d 'Print the watched jobs\' events as JSON lines, with raw values.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" interval' -l 'interval' -d 'Seconds between refreshes (0.2-60).' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" once' -l 'once' -d 'Print one frame as plain text and exit.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl top" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" socket' -l 'socket' -d 'The daemon\'s control socket.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" system' -l 'system' -d 'Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" user-instance' -l 'user-instance' -d 'Talk to your user instance only; do not fall back to the system instance.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" call-timeout' -l 'call-timeout' -d 'Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.' -rfka ''
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" json' -l 'json' -d 'Print raw JSON instead of a table.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" version' -l 'version' -d 'Show the version.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl reload" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'lullctl' -n '__lullctl_should_offer_completions_for_flags_or_options "lullctl help" version' -l 'version' -d 'Show the version.'
