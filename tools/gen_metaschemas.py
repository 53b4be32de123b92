#!/usr/bin/env python3
# gen_metaschemas.py - write lib/json_schema_meta.c: the JSON Schema drafts'
# metaschemas (04, 06, 07, 2019-09 and 2020-12 with their vocabularies),
# bundled so that `$schema` and `$ref`s to them resolve without a fetch.
# The documents are Debian's python3-jsonschema copies of json-schema.org's
# (the drafts' published metaschemas), compacted; rerun after updating them:
#   tools/gen_metaschemas.py > lib/json_schema_meta.c
import json, sys

SRC = "/usr/lib/python3/dist-packages/jsonschema/schemas/"
docs = []
for f, uri in (("draft4.json", "http://json-schema.org/draft-04/schema"),
               ("draft6.json", "http://json-schema.org/draft-06/schema"),
               ("draft7.json", "http://json-schema.org/draft-07/schema"),
               ("draft2019-09.json", "https://json-schema.org/draft/2019-09/schema"),
               ("draft2020-12.json", "https://json-schema.org/draft/2020-12/schema")):
    docs.append((uri, json.load(open(SRC + f))))
voc = json.load(open(SRC + "vocabularies.json"))
for uri in sorted(voc):
    if "hyper-schema" not in uri:
        docs.append((uri, voc[uri]))

# A document as pieces of at most 3,000 characters each (ISO C's compilers
# need take no string literal over 4,095), each piece in lines of 72.
def cstr(s):
    out, line, piece = [], "", 0
    for ch in s:
        e = {"\\": "\\\\", '"': '\\"'}.get(ch, ch)
        if piece + len(e) > 3000:
            out.append('\t"' + line + '",')
            line, piece = "", 0
        elif len(line) + len(e) > 72:
            out.append('\t"' + line + '"')
            line = ""
        line += e
        piece += len(e)
    out.append('\t"' + line + '", NULL')
    return "\n".join(out)

w = sys.stdout.write
w("/*\n * json_schema_meta.c - the drafts' metaschemas, bundled (written by\n"
  " * tools/gen_metaschemas.py from Debian's python3-jsonschema copies of the\n"
  " * documents json-schema.org publishes): `$schema` and `$ref`s to them\n"
  " * resolve without a fetch, and a schema is checked against its draft's.\n */\n")
w('#include <string.h>\n\n#include "json_schema_int.h"\n\n')
parts = []
for uri, d in docs:
    text = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
    w('static const char *const P%d[] = {\n%s\n};\n' % (len(parts), cstr(text)))
    parts.append(uri)
w("\nstatic const struct hm__metaschema META[] = {\n")
for i, uri in enumerate(parts):
    w('\t{ "%s", P%d },\n' % (uri, i))
w("};\n\n")
w("const struct hm__metaschema *\nhm__metaschema_find(const char *uri, size_t n)\n{\n"
  "\tsize_t i;\n\n"
  "\t/* an empty fragment (\"...schema#\") names the document too */\n"
  "\tif (n && uri[n - 1] == '#')\n\t\tn--;\n"
  "\tfor (i = 0; i < sizeof META / sizeof *META; i++)\n"
  "\t\tif (strlen(META[i].uri) == n && !memcmp(META[i].uri, uri, n))\n"
  "\t\t\treturn &META[i];\n\treturn NULL;\n}\n")
