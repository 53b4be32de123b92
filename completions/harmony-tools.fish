# fish completion for harmony-tools(1)

set -l commands render convert calls result
set -a commands validate
set -a commands grammar

complete -c harmony-tools -f
complete -c harmony-tools -n "not __fish_seen_subcommand_from $commands" -a render -d 'Tool definitions to the # Tools text'
complete -c harmony-tools -n "not __fish_seen_subcommand_from $commands" -a convert -d 'Tool definitions between shapes'
complete -c harmony-tools -n "not __fish_seen_subcommand_from $commands" -a calls -d 'Messages to one line per tool call'
complete -c harmony-tools -n "not __fish_seen_subcommand_from $commands" -a result -d 'A tool output to a tool message'
complete -c harmony-tools -n "not __fish_seen_subcommand_from $commands" -a validate -d 'JSON values against a JSON Schema'
complete -c harmony-tools -n "__fish_seen_subcommand_from render convert calls" -F
complete -c harmony-tools -n "__fish_seen_subcommand_from validate" -F
complete -c harmony-tools -n "not __fish_seen_subcommand_from $commands" -a grammar -d 'A request to the grammar of its completion'
complete -c harmony-tools -n "__fish_seen_subcommand_from grammar" -F
complete -c harmony-tools -l builtin -x -a 'browser python browser,python' -d 'grammar: add builtin tools'
complete -c harmony-tools -l no-analysis -d 'grammar: leave the analysis channel out'
complete -c harmony-tools -l tool-choice -x -a 'auto none required' -d 'grammar: this tool_choice'
complete -c harmony-tools -n "__fish_seen_subcommand_from grammar" -l from -x -a 'auto harmony chat responses anthropic' -d 'grammar: the request dialect'
complete -c harmony-tools -n "__fish_seen_subcommand_from grammar" -l to -x -a 'ebnf gbnf lark structural-tag' -d 'grammar: the form'

complete -c harmony-tools -l call-id -x -d 'result: record the call id'
complete -c harmony-tools -l check -r -F -d 'calls: check against tool definitions'
complete -c harmony-tools -n "not __fish_seen_subcommand_from grammar" -l from -x -a 'auto chat responses mcp anthropic harmony' -d 'Input shape'
complete -c harmony-tools -s h -l help -d 'Print a short usage and exit'
complete -c harmony-tools -l name -x -d 'result: the tool name'
complete -c harmony-tools -l namespace -x -d 'The tools namespace'
complete -c harmony-tools -l pretty -d 'Indent JSON output for people'
complete -c harmony-tools -s q -l quiet -d 'Print no warnings'
complete -c harmony-tools -l schema -r -F -d 'validate: the JSON Schema'
complete -c harmony-tools -l schema-dir -x -d 'validate: URI=DIR, schema documents read from DIR'
complete -c harmony-tools -l strict -d 'validate: unknown schema keywords are errors'
complete -c harmony-tools -l formats -x -a 'assert annotate draft' -d 'validate, calls --check: whether format asserts'
complete -c harmony-tools -n "not __fish_seen_subcommand_from grammar" -l to -x -a 'chat responses mcp anthropic harmony' -d 'convert: output shape'
complete -c harmony-tools -s V -l version -d 'Print the version and exit'
