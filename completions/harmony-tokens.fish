# fish completion for harmony-tokens(1)

function __harmony_tokens_to_formats
	set -l words (commandline -opc)
	if contains -- encode $words
		printf '%s\n' ids json lines
	else if contains -- decode $words
		printf '%s\n' text json
	else if contains -- inspect $words
		printf '%s\n' table json html
	else if contains -- diff $words
		printf '%s\n' text json html
	else
		printf '%s\n' ids json lines table text html
	end
end

set -l commands encode decode inspect count specials diff

complete -c harmony-tokens -f
complete -c harmony-tokens -n "not __fish_seen_subcommand_from $commands" \
	-a encode -d 'Text to token ids'
complete -c harmony-tokens -n "not __fish_seen_subcommand_from $commands" \
	-a decode -d 'Token ids to text'
complete -c harmony-tokens -n "not __fish_seen_subcommand_from $commands" \
	-a inspect -d 'One row per token'
complete -c harmony-tokens -n "not __fish_seen_subcommand_from $commands" \
	-a count -d 'Number of tokens'
complete -c harmony-tokens -n "not __fish_seen_subcommand_from $commands" \
	-a specials -d 'Special tokens and their ids'
complete -c harmony-tokens -n "not __fish_seen_subcommand_from $commands" \
	-a diff -d 'Compare two token files record by record'
complete -c harmony-tokens -n "__fish_seen_subcommand_from encode decode inspect count diff" -F

complete -c harmony-tokens -l color -x -a 'auto always never' -d 'When to color the output'
complete -c harmony-tokens -l context -x -d 'diff: ids shown around a difference'
complete -c harmony-tokens -l from -x -a 'text ids auto' -d 'Input format (inspect, count)'
complete -c harmony-tokens -s h -l help -d 'Print a short usage and exit'
complete -c harmony-tokens -l key -x -d 'diff: pair NDJSON records by this field'
complete -c harmony-tokens -l lines -d 'Each input line is its own record'
complete -c harmony-tokens -l lossy -d 'Replace invalid UTF-8 with U+FFFD'
complete -c harmony-tokens -l no-special -d 'Encode special-token text as plain text'
complete -c harmony-tokens -l prefix -d 'diff: each record of FILE2 must start with that of FILE1'
complete -c harmony-tokens -s q -l quiet -d 'Print no warnings; diff: exit status only'
complete -c harmony-tokens -l stop -d 'specials: only the stop tokens'
complete -c harmony-tokens -l stop-actions -d 'specials: only the stop tokens of actions'
complete -c harmony-tokens -l to -x -a '(__harmony_tokens_to_formats)' -d 'Output format'
complete -c harmony-tokens -s V -l version -d 'Print the version and exit'
