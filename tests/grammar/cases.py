#!/usr/bin/env python3
"""tests/grammar/cases.py - the grammars and completions the engine checks.

    python3 tests/grammar/cases.py BIN OUTDIR

For every request below x every tool_choice x every grammar form, writes
the grammar `harmony-tools grammar` makes into OUTDIR and, for each
completion, a line of OUTDIR/cases.ndjson (tests/grammar/engine.js's
input): the completion's token ids (harmony-tokens encode, piece by
piece, so that each marked point is a token boundary) and where the
engine must reject it, or null when it must accept it to the end.

A completion is a list of (label, text) pieces; a label marks the point
where its piece begins and says what starts there:
  an      an analysis message        wrong when analysis is left out
  pre     a commentary preamble      wrong when no tool may be called
  final   the final answer           wrong when a call is required
  call    a tool call                wrong when no tool may be called
  fn:R    the called tool's name, from where it differs from the others:
          wrong when tools may be called but not R
  err     a mistake of the text itself (a missing argument, a value
          outside the schema): always wrong
The first wrong point is where the engine must reject: the first token of
its piece.  The Lark form's cases go to OUTDIR/lark.ndjson, for python3-lark on the
whole text (tests/grammar/lark_check.py): accepted or not, as the engine.
"""
import json
import os
import subprocess
import sys

BIN, OUT = sys.argv[1], sys.argv[2]
# the check must be able to fail: every completion expected accepted
BREAK = os.environ.get('HM_GRAMMAR_BREAK') == '1'
os.makedirs(OUT, exist_ok=True)

CHAT = 'fixtures/tools/chat.json'
ANTHROPIC = 'fixtures/render/anthropic_tools.json'
RESPONSES = 'fixtures/render/responses_text_format.json'
FORMAT = 'fixtures/render/chat_response_format.json'

WEATHER, LOCATION = 'functions.get_current_weather', 'functions.get_location'
CHAT_TOOLS = {WEATHER, LOCATION}

# tool_choice: (its JSON, which tools it leaves callable (None: all), whether a final may end the turn)
CHAT_CHOICES = [
    ('auto', '"auto"', None, True),
    ('none', '"none"', set(), True),
    ('required', '"required"', None, False),
    ('named', '{"type":"function","function":{"name":"get_location"}}', {LOCATION}, False),
    ('allowed-auto', '{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":'
     '[{"type":"function","function":{"name":"get_current_weather"}}]}}', {WEATHER}, True),
    ('allowed-required', '{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":'
     '[{"type":"function","function":{"name":"get_location"}}]}}', {LOCATION}, False),
]
ANTHROPIC_CHOICES = [
    ('auto', '{"type":"auto"}', None, True),
    ('any', '{"type":"any","disable_parallel_tool_use":true}', None, False),
    ('tool', '{"type":"tool","name":"get_current_weather"}', {WEATHER}, False),
    ('none', '{"type":"none"}', set(), True),
]

ANALYSIS = [('', '<|channel|>'), ('an', 'analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>')]

CHAT_COMPLETIONS = [
    ('final', ANALYSIS + [('final', 'final<|message|>Sunny, 20 degrees.')], 200002),
    ('call-channel-first', ANALYSIS + [
        ('call', 'commentary to=functions.get'),
        ('fn:' + WEATHER, '_current_weather <|constrain|>json<|message|>{"location":"Tokyo"}')], 200012),
    ('call-recipient-first', [('', '<|channel|>'), ('an', 'analysis<|message|>x<|end|><|start|>assistant'),
        ('call', ' to=functions.get'),
        ('fn:' + WEATHER, '_current_weather<|channel|>commentary <|constrain|>json<|message|>'
         '{"location": "Tokyo", "format": "celsius"}')], 200012),
    ('preamble-call', [('', '<|channel|>'),
        ('pre', 'commentary<|message|>Let me check.<|end|><|start|>assistant<|channel|>commentary to=functions.get'),
        ('fn:' + LOCATION, '_location <|constrain|>json<|message|>{}')], 200012),
    ('missing-argument', [('', '<|channel|>'), ('call', 'commentary to=functions.get'),
        ('fn:' + WEATHER, '_current_weather <|constrain|>json<|message|>{'), ('err', '}')], 200012),
    ('outside-enum', [('', '<|channel|>'), ('call', 'commentary to=functions.get'),
        ('fn:' + WEATHER, '_current_weather <|constrain|>json<|message|>{"location":"Tokyo","format":"'),
        ('err', 'kelvin"}')], 200012),
]

RESPONSES_CHOICES = [
    ('auto', '"auto"', None, True),
    ('none', '"none"', set(), True),
    ('required', '"required"', None, False),
    ('named', '{"type":"function","name":"get_weather"}', {'functions.get_weather'}, False),
]
FORECAST_LEAD = [('', '<|channel|>'), ('an', 'analysis<|message|>Three days.<|end|><|start|>assistant<|channel|>')]
RESPONSES_COMPLETIONS = [
    ('final-schema', FORECAST_LEAD + [('final', 'final<|message|>{"location":"Oslo","unit":"celsius","days":'
        '[{"date":"2026-01-01","hours":3},{"date":"2026-01-02","hours":4}]}')], 200002),
    ('final-extra-property', FORECAST_LEAD + [('final', 'final<|message|>{"location":"Oslo","unit":null,"days":[]'),
        ('err', ',"wind":1}')], 200002),
    ('final-outside-enum', FORECAST_LEAD + [('final', 'final<|message|>{"location":"Oslo","unit":"'),
        ('err', 'kelvin","days":[]}')], 200002),
    ('final-prose', FORECAST_LEAD + [('final', 'final<|message|>'), ('err', 'It will rain.')], 200002),
    ('call', FORECAST_LEAD[:1] + [('an', 'analysis<|message|>Weather first.<|end|><|start|>assistant<|channel|>'),
        ('call', 'commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}')], 200012),
]

FORMAT_COMPLETIONS = [
    ('final-schema', [('', '<|channel|>final<|message|>{"items":["coffee","soda","eggs"]}')], 200002),
    ('final-outside-schema', [('', '<|channel|>final<|message|>{"items":['), ('err', '1]}')], 200002),
]
OBJECT_COMPLETIONS = [
    ('final-object', ANALYSIS + [('final', 'final<|message|>{"riddle": "what falls but never breaks?"}')], 200002),
    ('final-prose', ANALYSIS + [('final', 'final<|message|>'), ('err', 'Night falls.')], 200002),
]
BUILTIN_COMPLETIONS = [
    ('browser', [('', '<|channel|>analysis'), ('fn:browser.search', ' to=browser.search<|message|>{"query":"weather Tokyo"}')], 200012),
    ('python', [('', '<|channel|>analysis'), ('fn:python', ' to=python code<|message|>print(1)')], 200012),
]
BUILTIN_CHOICES = [
    ('auto', '"auto"', None, True),
    ('named', '{"type":"function","function":{"name":"get_location"}}', {LOCATION}, False),
]

FORMS = ['ebnf', 'gbnf', 'structural-tag', 'lark']


def run(args, data=None):
    return subprocess.run(args, input=data, capture_output=True, check=True).stdout


def encode(text):
    return [int(x) for x in run([f'{BIN}/harmony-tokens', 'encode'], text.encode()).split()]


def fixture(path, marks):
    """A real completion's ids, its points marked at token indexes."""
    ids = [int(x) for x in open(path).read().split()]
    assert ids[-1] == 200012
    ids = ids[:-1]
    cut = [0] + [i for i, _ in marks] + [len(ids)]
    labels = [''] + [m for _, m in marks]
    return [(labels[k], ids[cut[k]:cut[k + 1]]) for k in range(len(labels))]


# The model's own completions (recipient first, then channel first): the
# analysis at 1, the call at 14 or 15, where get_current_weather differs from
# get_location (`_current`) at 18 or 21.
CHAT_COMPLETIONS += [
    ('fixture-model-output', fixture('fixtures/tools/model_output.ids',
        [(1, 'an'), (14, 'call'), (18, 'fn:' + WEATHER)]), 200012),
    ('fixture-channel-first', fixture('fixtures/tools/model_output_channel_first.ids',
        [(1, 'an'), (15, 'call'), (21, 'fn:' + WEATHER)]), 200012),
]


def expect(pieces, callable_, final_ok, analysis=True):
    """The ids and the index of the first wrong token (None: all good)."""
    ids, reject = [], None
    calls = bool(callable_)
    for label, text in pieces:
        wrong = (label == 'an' and not analysis) or (label == 'pre' and not calls) or \
            (label == 'final' and not final_ok) or (label == 'call' and not calls) or \
            (label.startswith('fn:') and calls and label[3:] not in callable_) or label == 'err'
        if wrong and reject is None:
            reject = len(ids)
        ids += text if isinstance(text, list) else encode(text)
    return ids, reject


cases = []
lark_cases = []
n = 0
planned = [0]  # engine cases that must be rejected


def matrix(req, choices, completions, all_tools, extra=(), name=None, analysis=True):
    global n
    for cname, tc, callable_, final_ok in choices:
        if callable_ is None:
            callable_ = all_tools
        for form in FORMS:
            n += 1
            path = os.path.join(OUT, f'g{n}.{form}')
            args = [f'{BIN}/harmony-tools', 'grammar', '-q', f'--to={form}', f'--tool-choice={tc}',
                    *extra, req]
            with open(path, 'wb') as f:
                f.write(run(args))
            for comp, pieces, stop in completions:
                ids, reject = expect(pieces, callable_, final_ok, analysis)
                if reject is not None and form != 'lark':
                    planned[0] += 1
                if BREAK:
                    reject = None
                label = f'{name or os.path.basename(req)} {cname} {comp}'
                if form == 'lark':
                    if isinstance(pieces[0][1], list):
                        continue
                    text = ''.join(t for _, t in pieces)
                    lark_cases.append({'name': label, 'grammar': path, 'text': text,
                                       'accept': reject is None})
                else:
                    cases.append({'name': label, 'form': form, 'grammar': path, 'ids': ids,
                                  'reject_at': reject, 'stop': stop})


matrix(CHAT, CHAT_CHOICES, CHAT_COMPLETIONS, CHAT_TOOLS)
matrix(ANTHROPIC, ANTHROPIC_CHOICES, CHAT_COMPLETIONS, CHAT_TOOLS)
matrix(CHAT, [('auto', '"auto"', None, True)], CHAT_COMPLETIONS[:2], CHAT_TOOLS,
       extra=['--no-analysis'], name='chat.json no-analysis', analysis=False)
matrix(RESPONSES, RESPONSES_CHOICES, RESPONSES_COMPLETIONS, {'functions.get_weather'})
matrix(FORMAT, [('auto', '"auto"', None, True), ('none', '"none"', set(), True)], FORMAT_COMPLETIONS, set())
# json_object: the chat request with its format
req = json.load(open(CHAT))
req['response_format'] = {'type': 'json_object'}
obj = os.path.join(OUT, 'json_object.json')
json.dump(req, open(obj, 'w'))
matrix(obj, [('none', '"none"', set(), True)], OBJECT_COMPLETIONS, set())
matrix(CHAT, BUILTIN_CHOICES, BUILTIN_COMPLETIONS + CHAT_COMPLETIONS[:1], CHAT_TOOLS | {'browser.search', 'python'},
       extra=['--builtin=browser,python'], name='chat.json builtins')

# JSON Schema to grammar: pattern, min/maxItems, bounds, $ref recursion (fixtures/grammar/limits.json)
TAG = [('', '<|channel|>commentary to=functions.tag <|constrain|>json<|message|>')]
LIMITS_COMPLETIONS = [
    ('nested', TAG + [('', '{"tags":["a-1","b"],"weight":2.5,"next":{"id":1,"child":{"id":2,"child":null}}}')], 200012),
    ('too-many-items', TAG + [('', '{"tags":["a","b","c"'), ('err', ',"d"]}')], 200012),
    ('too-few-items', TAG + [('', '{"tags":['), ('err', ']}')], 200012),
    ('pattern', TAG + [('', '{"tags":["'), ('err', 'Abc"]}')], 200012),
    ('pattern-length', TAG + [('', '{"tags":["abcdefghijklmnop'), ('err', 'q"]}')], 200012),
    ('minimum', TAG + [('', '{"tags":["a"],"weight":'), ('err', '-1}')], 200012),
    ('exclusive-minimum', TAG + [('', '{"tags":["a"],"next":{"id":'), ('err', '0}}')], 200012),
    ('recursion-extra', TAG + [('', '{"tags":["a"],"next":{"id":1,"child":{"id":2}'), ('err', ',"x":1}}}')], 200012),
]
matrix('fixtures/grammar/limits.json', [('required', '"required"', None, False)], LIMITS_COMPLETIONS,
       {'functions.tag'})

with open(os.path.join(OUT, 'cases.ndjson'), 'w') as f:
    for c in cases:
        f.write(json.dumps(c) + '\n')
with open(os.path.join(OUT, 'lark.ndjson'), 'w') as f:
    for c in lark_cases:
        f.write(json.dumps(c) + '\n')
print(f'cases: {len(cases)} engine cases ({planned[0]} to reject), {len(lark_cases)} lark cases, {n} grammars')
