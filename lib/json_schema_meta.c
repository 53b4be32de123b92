/*
 * json_schema_meta.c - the drafts' metaschemas, bundled (written by
 * tools/gen_metaschemas.py from Debian's python3-jsonschema copies of the
 * documents json-schema.org publishes): `$schema` and `$ref`s to them
 * resolve without a fetch, and a schema is checked against its draft's.
 */
#include <string.h>

#include "json_schema_int.h"

static const char *const P0[] = {
	"{\"id\":\"http://json-schema.org/draft-04/schema#\",\"$schema\":\"http:/"
	"/json-schema.org/draft-04/schema#\",\"description\":\"Core schema meta-s"
	"chema\",\"definitions\":{\"schemaArray\":{\"type\":\"array\",\"minItems"
	"\":1,\"items\":{\"$ref\":\"#\"}},\"positiveInteger\":{\"type\":\"integer"
	"\",\"minimum\":0},\"positiveIntegerDefault0\":{\"allOf\":[{\"$ref\":\"#/"
	"definitions/positiveInteger\"},{\"default\":0}]},\"simpleTypes\":{\"enum"
	"\":[\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\",\"s"
	"tring\"]},\"stringArray\":{\"type\":\"array\",\"items\":{\"type\":\"stri"
	"ng\"},\"minItems\":1,\"uniqueItems\":true}},\"type\":\"object\",\"proper"
	"ties\":{\"id\":{\"format\":\"uri\",\"type\":\"string\"},\"$schema\":{\"t"
	"ype\":\"string\",\"format\":\"uri\"},\"title\":{\"type\":\"string\"},\"d"
	"escription\":{\"type\":\"string\"},\"default\":{},\"multipleOf\":{\"type"
	"\":\"number\",\"minimum\":0,\"exclusiveMinimum\":true},\"maximum\":{\"ty"
	"pe\":\"number\"},\"exclusiveMaximum\":{\"type\":\"boolean\",\"default\":"
	"false},\"minimum\":{\"type\":\"number\"},\"exclusiveMinimum\":{\"type\":"
	"\"boolean\",\"default\":false},\"maxLength\":{\"$ref\":\"#/definitions/p"
	"ositiveInteger\"},\"minLength\":{\"$ref\":\"#/definitions/positiveIntege"
	"rDefault0\"},\"pattern\":{\"type\":\"string\",\"format\":\"regex\"},\"ad"
	"ditionalItems\":{\"anyOf\":[{\"type\":\"boolean\"},{\"$ref\":\"#\"}],\"d"
	"efault\":{}},\"items\":{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#/defini"
	"tions/schemaArray\"}],\"default\":{}},\"maxItems\":{\"$ref\":\"#/definit"
	"ions/positiveInteger\"},\"minItems\":{\"$ref\":\"#/definitions/positiveI"
	"ntegerDefault0\"},\"uniqueItems\":{\"type\":\"boolean\",\"default\":fals"
	"e},\"maxProperties\":{\"$ref\":\"#/definitions/positiveInteger\"},\"minP"
	"roperties\":{\"$ref\":\"#/definitions/positiveIntegerDefault0\"},\"requi"
	"red\":{\"$ref\":\"#/definitions/stringArray\"},\"additionalProperties\":"
	"{\"anyOf\":[{\"type\":\"boolean\"},{\"$ref\":\"#\"}],\"default\":{}},\"d"
	"efinitions\":{\"type\":\"object\",\"additionalProperties\":{\"$ref\":\"#"
	"\"},\"default\":{}},\"properties\":{\"type\":\"object\",\"additionalProp"
	"erties\":{\"$ref\":\"#\"},\"default\":{}},\"patternProperties\":{\"type"
	"\":\"object\",\"additionalProperties\":{\"$ref\":\"#\"},\"default\":{}},"
	"\"dependencies\":{\"type\":\"object\",\"additionalProperties\":{\"anyOf"
	"\":[{\"$ref\":\"#\"},{\"$ref\":\"#/definitions/stringArray\"}]}},\"enum"
	"\":{\"type\":\"array\"},\"type\":{\"anyOf\":[{\"$ref\":\"#/definitions/s"
	"impleTypes\"},{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/si"
	"mpleTypes\"},\"minItems\":1,\"uniqueItems\":true}]},\"format\":{\"type\""
	":\"string\"},\"allOf\":{\"$ref\":\"#/definitions/schemaArray\"},\"anyOf"
	"\":{\"$ref\":\"#/definitions/schemaArray\"},\"oneOf\":{\"$ref\":\"#/defi"
	"nitions/schemaArray\"},\"not\":{\"$ref\":\"#\"}},\"dependencies\":{\"exc"
	"lusiveMaximum\":[\"maximum\"],\"exclusiveMinimum\":[\"minimum\"]},\"defa"
	"ult\":{}}", NULL
};
static const char *const P1[] = {
	"{\"$schema\":\"http://json-schema.org/draft-06/schema#\",\"$id\":\"http:"
	"//json-schema.org/draft-06/schema#\",\"title\":\"Core schema meta-schema"
	"\",\"definitions\":{\"schemaArray\":{\"type\":\"array\",\"minItems\":1,"
	"\"items\":{\"$ref\":\"#\"}},\"nonNegativeInteger\":{\"type\":\"integer\""
	",\"minimum\":0},\"nonNegativeIntegerDefault0\":{\"allOf\":[{\"$ref\":\"#"
	"/definitions/nonNegativeInteger\"},{\"default\":0}]},\"simpleTypes\":{\""
	"enum\":[\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\""
	",\"string\"]},\"stringArray\":{\"type\":\"array\",\"items\":{\"type\":\""
	"string\"},\"uniqueItems\":true,\"default\":[]}},\"type\":[\"object\",\"b"
	"oolean\"],\"properties\":{\"$id\":{\"type\":\"string\",\"format\":\"uri-"
	"reference\"},\"$schema\":{\"type\":\"string\",\"format\":\"uri\"},\"$ref"
	"\":{\"type\":\"string\",\"format\":\"uri-reference\"},\"title\":{\"type"
	"\":\"string\"},\"description\":{\"type\":\"string\"},\"default\":{},\"ex"
	"amples\":{\"type\":\"array\",\"items\":{}},\"multipleOf\":{\"type\":\"nu"
	"mber\",\"exclusiveMinimum\":0},\"maximum\":{\"type\":\"number\"},\"exclu"
	"siveMaximum\":{\"type\":\"number\"},\"minimum\":{\"type\":\"number\"},\""
	"exclusiveMinimum\":{\"type\":\"number\"},\"maxLength\":{\"$ref\":\"#/def"
	"initions/nonNegativeInteger\"},\"minLength\":{\"$ref\":\"#/definitions/n"
	"onNegativeIntegerDefault0\"},\"pattern\":{\"type\":\"string\",\"format\""
	":\"regex\"},\"additionalItems\":{\"$ref\":\"#\"},\"items\":{\"anyOf\":[{"
	"\"$ref\":\"#\"},{\"$ref\":\"#/definitions/schemaArray\"}],\"default\":{}"
	"},\"maxItems\":{\"$ref\":\"#/definitions/nonNegativeInteger\"},\"minItem"
	"s\":{\"$ref\":\"#/definitions/nonNegativeIntegerDefault0\"},\"uniqueItem"
	"s\":{\"type\":\"boolean\",\"default\":false},\"contains\":{\"$ref\":\"#"
	"\"},\"maxProperties\":{\"$ref\":\"#/definitions/nonNegativeInteger\"},\""
	"minProperties\":{\"$ref\":\"#/definitions/nonNegativeIntegerDefault0\"},"
	"\"required\":{\"$ref\":\"#/definitions/stringArray\"},\"additionalProper"
	"ties\":{\"$ref\":\"#\"},\"definitions\":{\"type\":\"object\",\"additiona"
	"lProperties\":{\"$ref\":\"#\"},\"default\":{}},\"properties\":{\"type\":"
	"\"object\",\"additionalProperties\":{\"$ref\":\"#\"},\"default\":{}},\"p"
	"atternProperties\":{\"type\":\"object\",\"additionalProperties\":{\"$ref"
	"\":\"#\"},\"propertyNames\":{\"format\":\"regex\"},\"default\":{}},\"dep"
	"endencies\":{\"type\":\"object\",\"additionalProperties\":{\"anyOf\":[{"
	"\"$ref\":\"#\"},{\"$ref\":\"#/definitions/stringArray\"}]}},\"propertyNa"
	"mes\":{\"$ref\":\"#\"},\"const\":{},\"enum\":{\"type\":\"array\"},\"type"
	"\":{\"anyOf\":[{\"$ref\":\"#/definitions/simpleTypes\"},{\"type\":\"arra"
	"y\",\"items\":{\"$ref\":\"#/definitions/simpleTypes\"},\"minItems\":1,\""
	"uniqueItems\":true}]},\"format\":{\"type\":\"string\"},\"allOf\":{\"$ref"
	"\":\"#/definitions/schemaArray\"},\"anyOf\":{\"$ref\":\"#/definitions/sc"
	"hemaArray\"},\"oneOf\":{\"$ref\":\"#/definitions/schemaArray\"},\"not\":"
	"{\"$ref\":\"#\"}},\"default\":{}}", NULL
};
static const char *const P2[] = {
	"{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"$id\":\"http:"
	"//json-schema.org/draft-07/schema#\",\"title\":\"Core schema meta-schema"
	"\",\"definitions\":{\"schemaArray\":{\"type\":\"array\",\"minItems\":1,"
	"\"items\":{\"$ref\":\"#\"}},\"nonNegativeInteger\":{\"type\":\"integer\""
	",\"minimum\":0},\"nonNegativeIntegerDefault0\":{\"allOf\":[{\"$ref\":\"#"
	"/definitions/nonNegativeInteger\"},{\"default\":0}]},\"simpleTypes\":{\""
	"enum\":[\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\""
	",\"string\"]},\"stringArray\":{\"type\":\"array\",\"items\":{\"type\":\""
	"string\"},\"uniqueItems\":true,\"default\":[]}},\"type\":[\"object\",\"b"
	"oolean\"],\"properties\":{\"$id\":{\"type\":\"string\",\"format\":\"uri-"
	"reference\"},\"$schema\":{\"type\":\"string\",\"format\":\"uri\"},\"$ref"
	"\":{\"type\":\"string\",\"format\":\"uri-reference\"},\"$comment\":{\"ty"
	"pe\":\"string\"},\"title\":{\"type\":\"string\"},\"description\":{\"type"
	"\":\"string\"},\"default\":true,\"readOnly\":{\"type\":\"boolean\",\"def"
	"ault\":false},\"examples\":{\"type\":\"array\",\"items\":true},\"multipl"
	"eOf\":{\"type\":\"number\",\"exclusiveMinimum\":0},\"maximum\":{\"type\""
	":\"number\"},\"exclusiveMaximum\":{\"type\":\"number\"},\"minimum\":{\"t"
	"ype\":\"number\"},\"exclusiveMinimum\":{\"type\":\"number\"},\"maxLength"
	"\":{\"$ref\":\"#/definitions/nonNegativeInteger\"},\"minLength\":{\"$ref"
	"\":\"#/definitions/nonNegativeIntegerDefault0\"},\"pattern\":{\"type\":"
	"\"string\",\"format\":\"regex\"},\"additionalItems\":{\"$ref\":\"#\"},\""
	"items\":{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#/definitions/schemaArr"
	"ay\"}],\"default\":true},\"maxItems\":{\"$ref\":\"#/definitions/nonNegat"
	"iveInteger\"},\"minItems\":{\"$ref\":\"#/definitions/nonNegativeIntegerD"
	"efault0\"},\"uniqueItems\":{\"type\":\"boolean\",\"default\":false},\"co"
	"ntains\":{\"$ref\":\"#\"},\"maxProperties\":{\"$ref\":\"#/definitions/no"
	"nNegativeInteger\"},\"minProperties\":{\"$ref\":\"#/definitions/nonNegat"
	"iveIntegerDefault0\"},\"required\":{\"$ref\":\"#/definitions/stringArray"
	"\"},\"additionalProperties\":{\"$ref\":\"#\"},\"definitions\":{\"type\":"
	"\"object\",\"additionalProperties\":{\"$ref\":\"#\"},\"default\":{}},\"p"
	"roperties\":{\"type\":\"object\",\"additionalProperties\":{\"$ref\":\"#"
	"\"},\"default\":{}},\"patternProperties\":{\"type\":\"object\",\"additio"
	"nalProperties\":{\"$ref\":\"#\"},\"propertyNames\":{\"format\":\"regex\""
	"},\"default\":{}},\"dependencies\":{\"type\":\"object\",\"additionalProp"
	"erties\":{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#/definitions/stringAr"
	"ray\"}]}},\"propertyNames\":{\"$ref\":\"#\"},\"const\":true,\"enum\":{\""
	"type\":\"array\",\"items\":true},\"type\":{\"anyOf\":[{\"$ref\":\"#/defi"
	"nitions/simpleTypes\"},{\"type\":\"array\",\"items\":{\"$ref\":\"#/defin"
	"itions/simpleTypes\"},\"minItems\":1,\"uniqueItems\":true}]},\"format\":"
	"{\"type\":\"string\"},\"contentMediaType\":{\"type\":\"string\"},\"conte"
	"ntEncoding\":{\"type\":\"string\"},\"if\":{\"$ref\":\"#\"},\"then\":{\"$"
	"ref\":\"#\"},\"else\":{\"$ref\":\"#\"},\"allOf\":{",
	"\"$ref\":\"#/definitions/schemaArray\"},\"anyOf\":{\"$ref\":\"#/definiti"
	"ons/schemaArray\"},\"oneOf\":{\"$ref\":\"#/definitions/schemaArray\"},\""
	"not\":{\"$ref\":\"#\"}},\"default\":true}", NULL
};
static const char *const P3[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/schema\",\"$vocabulary\":{\"https:"
	"//json-schema.org/draft/2019-09/vocab/core\":true,\"https://json-schema."
	"org/draft/2019-09/vocab/applicator\":true,\"https://json-schema.org/draf"
	"t/2019-09/vocab/validation\":true,\"https://json-schema.org/draft/2019-0"
	"9/vocab/meta-data\":true,\"https://json-schema.org/draft/2019-09/vocab/f"
	"ormat\":false,\"https://json-schema.org/draft/2019-09/vocab/content\":tr"
	"ue},\"$recursiveAnchor\":true,\"title\":\"Core and Validation specificat"
	"ions meta-schema\",\"allOf\":[{\"$ref\":\"meta/core\"},{\"$ref\":\"meta/"
	"applicator\"},{\"$ref\":\"meta/validation\"},{\"$ref\":\"meta/meta-data"
	"\"},{\"$ref\":\"meta/format\"},{\"$ref\":\"meta/content\"}],\"type\":[\""
	"object\",\"boolean\"],\"properties\":{\"definitions\":{\"$comment\":\"Wh"
	"ile no longer an official keyword as it is replaced by $defs, this keywo"
	"rd is retained in the meta-schema to prevent incompatible extensions as "
	"it remains in common use.\",\"type\":\"object\",\"additionalProperties\""
	":{\"$recursiveRef\":\"#\"},\"default\":{}},\"dependencies\":{\"$comment"
	"\":\"\\\"dependencies\\\" is no longer a keyword, but schema authors sho"
	"uld avoid redefining it to facilitate a smooth transition to \\\"depende"
	"ntSchemas\\\" and \\\"dependentRequired\\\"\",\"type\":\"object\",\"addi"
	"tionalProperties\":{\"anyOf\":[{\"$recursiveRef\":\"#\"},{\"$ref\":\"met"
	"a/validation#/$defs/stringArray\"}]}}}}", NULL
};
static const char *const P4[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/schema\",\"$vocabulary\":{\"https:"
	"//json-schema.org/draft/2020-12/vocab/core\":true,\"https://json-schema."
	"org/draft/2020-12/vocab/applicator\":true,\"https://json-schema.org/draf"
	"t/2020-12/vocab/unevaluated\":true,\"https://json-schema.org/draft/2020-"
	"12/vocab/validation\":true,\"https://json-schema.org/draft/2020-12/vocab"
	"/meta-data\":true,\"https://json-schema.org/draft/2020-12/vocab/format-a"
	"nnotation\":true,\"https://json-schema.org/draft/2020-12/vocab/content\""
	":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Core and Validation speci"
	"fications meta-schema\",\"allOf\":[{\"$ref\":\"meta/core\"},{\"$ref\":\""
	"meta/applicator\"},{\"$ref\":\"meta/unevaluated\"},{\"$ref\":\"meta/vali"
	"dation\"},{\"$ref\":\"meta/meta-data\"},{\"$ref\":\"meta/format-annotati"
	"on\"},{\"$ref\":\"meta/content\"}],\"type\":[\"object\",\"boolean\"],\"$"
	"comment\":\"This meta-schema also defines keywords that have appeared in"
	" previous drafts in order to prevent incompatible extensions as they rem"
	"ain in common use.\",\"properties\":{\"definitions\":{\"$comment\":\"\\"
	"\"definitions\\\" has been replaced by \\\"$defs\\\".\",\"type\":\"objec"
	"t\",\"additionalProperties\":{\"$dynamicRef\":\"#meta\"},\"deprecated\":"
	"true,\"default\":{}},\"dependencies\":{\"$comment\":\"\\\"dependencies\\"
	"\" has been split and replaced by \\\"dependentSchemas\\\" and \\\"depen"
	"dentRequired\\\" in order to serve their differing semantics.\",\"type\""
	":\"object\",\"additionalProperties\":{\"anyOf\":[{\"$dynamicRef\":\"#met"
	"a\"},{\"$ref\":\"meta/validation#/$defs/stringArray\"}]},\"deprecated\":"
	"true,\"default\":{}},\"$recursiveAnchor\":{\"$comment\":\"\\\"$recursive"
	"Anchor\\\" has been replaced by \\\"$dynamicAnchor\\\".\",\"$ref\":\"met"
	"a/core#/$defs/anchorString\",\"deprecated\":true},\"$recursiveRef\":{\"$"
	"comment\":\"\\\"$recursiveRef\\\" has been replaced by \\\"$dynamicRef\\"
	"\".\",\"$ref\":\"meta/core#/$defs/uriReferenceString\",\"deprecated\":tr"
	"ue}}}", NULL
};
static const char *const P5[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/meta/applicator\",\"$vocabulary\":"
	"{\"https://json-schema.org/draft/2019-09/vocab/applicator\":true},\"$rec"
	"ursiveAnchor\":true,\"title\":\"Applicator vocabulary meta-schema\",\"ty"
	"pe\":[\"object\",\"boolean\"],\"properties\":{\"additionalItems\":{\"$re"
	"cursiveRef\":\"#\"},\"unevaluatedItems\":{\"$recursiveRef\":\"#\"},\"ite"
	"ms\":{\"anyOf\":[{\"$recursiveRef\":\"#\"},{\"$ref\":\"#/$defs/schemaArr"
	"ay\"}]},\"contains\":{\"$recursiveRef\":\"#\"},\"additionalProperties\":"
	"{\"$recursiveRef\":\"#\"},\"unevaluatedProperties\":{\"$recursiveRef\":"
	"\"#\"},\"properties\":{\"type\":\"object\",\"additionalProperties\":{\"$"
	"recursiveRef\":\"#\"},\"default\":{}},\"patternProperties\":{\"type\":\""
	"object\",\"additionalProperties\":{\"$recursiveRef\":\"#\"},\"propertyNa"
	"mes\":{\"format\":\"regex\"},\"default\":{}},\"dependentSchemas\":{\"typ"
	"e\":\"object\",\"additionalProperties\":{\"$recursiveRef\":\"#\"}},\"pro"
	"pertyNames\":{\"$recursiveRef\":\"#\"},\"if\":{\"$recursiveRef\":\"#\"},"
	"\"then\":{\"$recursiveRef\":\"#\"},\"else\":{\"$recursiveRef\":\"#\"},\""
	"allOf\":{\"$ref\":\"#/$defs/schemaArray\"},\"anyOf\":{\"$ref\":\"#/$defs"
	"/schemaArray\"},\"oneOf\":{\"$ref\":\"#/$defs/schemaArray\"},\"not\":{\""
	"$recursiveRef\":\"#\"}},\"$defs\":{\"schemaArray\":{\"type\":\"array\","
	"\"minItems\":1,\"items\":{\"$recursiveRef\":\"#\"}}}}", NULL
};
static const char *const P6[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/meta/content\",\"$vocabulary\":{\""
	"https://json-schema.org/draft/2019-09/vocab/content\":true},\"$recursive"
	"Anchor\":true,\"title\":\"Content vocabulary meta-schema\",\"type\":[\"o"
	"bject\",\"boolean\"],\"properties\":{\"contentMediaType\":{\"type\":\"st"
	"ring\"},\"contentEncoding\":{\"type\":\"string\"},\"contentSchema\":{\"$"
	"recursiveRef\":\"#\"}}}", NULL
};
static const char *const P7[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/meta/core\",\"$vocabulary\":{\"htt"
	"ps://json-schema.org/draft/2019-09/vocab/core\":true},\"$recursiveAnchor"
	"\":true,\"title\":\"Core vocabulary meta-schema\",\"type\":[\"object\","
	"\"boolean\"],\"properties\":{\"$id\":{\"type\":\"string\",\"format\":\"u"
	"ri-reference\",\"$comment\":\"Non-empty fragments not allowed.\",\"patte"
	"rn\":\"^[^#]*#?$\"},\"$schema\":{\"type\":\"string\",\"format\":\"uri\"}"
	",\"$anchor\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z][-A-Za-z0-9.:_]"
	"*$\"},\"$ref\":{\"type\":\"string\",\"format\":\"uri-reference\"},\"$rec"
	"ursiveRef\":{\"type\":\"string\",\"format\":\"uri-reference\"},\"$recurs"
	"iveAnchor\":{\"type\":\"boolean\",\"default\":false},\"$vocabulary\":{\""
	"type\":\"object\",\"propertyNames\":{\"type\":\"string\",\"format\":\"ur"
	"i\"},\"additionalProperties\":{\"type\":\"boolean\"}},\"$comment\":{\"ty"
	"pe\":\"string\"},\"$defs\":{\"type\":\"object\",\"additionalProperties\""
	":{\"$recursiveRef\":\"#\"},\"default\":{}}}}", NULL
};
static const char *const P8[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/meta/format\",\"$vocabulary\":{\"h"
	"ttps://json-schema.org/draft/2019-09/vocab/format\":true},\"$recursiveAn"
	"chor\":true,\"title\":\"Format vocabulary meta-schema\",\"type\":[\"obje"
	"ct\",\"boolean\"],\"properties\":{\"format\":{\"type\":\"string\"}}}", NULL
};
static const char *const P9[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/meta/meta-data\",\"$vocabulary\":{"
	"\"https://json-schema.org/draft/2019-09/vocab/meta-data\":true},\"$recur"
	"siveAnchor\":true,\"title\":\"Meta-data vocabulary meta-schema\",\"type"
	"\":[\"object\",\"boolean\"],\"properties\":{\"title\":{\"type\":\"string"
	"\"},\"description\":{\"type\":\"string\"},\"default\":true,\"deprecated"
	"\":{\"type\":\"boolean\",\"default\":false},\"readOnly\":{\"type\":\"boo"
	"lean\",\"default\":false},\"writeOnly\":{\"type\":\"boolean\",\"default"
	"\":false},\"examples\":{\"type\":\"array\",\"items\":true}}}", NULL
};
static const char *const P10[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\",\"$id\":\""
	"https://json-schema.org/draft/2019-09/meta/validation\",\"$vocabulary\":"
	"{\"https://json-schema.org/draft/2019-09/vocab/validation\":true},\"$rec"
	"ursiveAnchor\":true,\"title\":\"Validation vocabulary meta-schema\",\"ty"
	"pe\":[\"object\",\"boolean\"],\"properties\":{\"multipleOf\":{\"type\":"
	"\"number\",\"exclusiveMinimum\":0},\"maximum\":{\"type\":\"number\"},\"e"
	"xclusiveMaximum\":{\"type\":\"number\"},\"minimum\":{\"type\":\"number\""
	"},\"exclusiveMinimum\":{\"type\":\"number\"},\"maxLength\":{\"$ref\":\"#"
	"/$defs/nonNegativeInteger\"},\"minLength\":{\"$ref\":\"#/$defs/nonNegati"
	"veIntegerDefault0\"},\"pattern\":{\"type\":\"string\",\"format\":\"regex"
	"\"},\"maxItems\":{\"$ref\":\"#/$defs/nonNegativeInteger\"},\"minItems\":"
	"{\"$ref\":\"#/$defs/nonNegativeIntegerDefault0\"},\"uniqueItems\":{\"typ"
	"e\":\"boolean\",\"default\":false},\"maxContains\":{\"$ref\":\"#/$defs/n"
	"onNegativeInteger\"},\"minContains\":{\"$ref\":\"#/$defs/nonNegativeInte"
	"ger\",\"default\":1},\"maxProperties\":{\"$ref\":\"#/$defs/nonNegativeIn"
	"teger\"},\"minProperties\":{\"$ref\":\"#/$defs/nonNegativeIntegerDefault"
	"0\"},\"required\":{\"$ref\":\"#/$defs/stringArray\"},\"dependentRequired"
	"\":{\"type\":\"object\",\"additionalProperties\":{\"$ref\":\"#/$defs/str"
	"ingArray\"}},\"const\":true,\"enum\":{\"type\":\"array\",\"items\":true}"
	",\"type\":{\"anyOf\":[{\"$ref\":\"#/$defs/simpleTypes\"},{\"type\":\"arr"
	"ay\",\"items\":{\"$ref\":\"#/$defs/simpleTypes\"},\"minItems\":1,\"uniqu"
	"eItems\":true}]}},\"$defs\":{\"nonNegativeInteger\":{\"type\":\"integer"
	"\",\"minimum\":0},\"nonNegativeIntegerDefault0\":{\"$ref\":\"#/$defs/non"
	"NegativeInteger\",\"default\":0},\"simpleTypes\":{\"enum\":[\"array\",\""
	"boolean\",\"integer\",\"null\",\"number\",\"object\",\"string\"]},\"stri"
	"ngArray\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueIt"
	"ems\":true,\"default\":[]}}}", NULL
};
static const char *const P11[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/applicator\",\"$vocabulary\":"
	"{\"https://json-schema.org/draft/2020-12/vocab/applicator\":true},\"$dyn"
	"amicAnchor\":\"meta\",\"title\":\"Applicator vocabulary meta-schema\",\""
	"type\":[\"object\",\"boolean\"],\"properties\":{\"prefixItems\":{\"$ref"
	"\":\"#/$defs/schemaArray\"},\"items\":{\"$dynamicRef\":\"#meta\"},\"cont"
	"ains\":{\"$dynamicRef\":\"#meta\"},\"additionalProperties\":{\"$dynamicR"
	"ef\":\"#meta\"},\"properties\":{\"type\":\"object\",\"additionalProperti"
	"es\":{\"$dynamicRef\":\"#meta\"},\"default\":{}},\"patternProperties\":{"
	"\"type\":\"object\",\"additionalProperties\":{\"$dynamicRef\":\"#meta\"}"
	",\"propertyNames\":{\"format\":\"regex\"},\"default\":{}},\"dependentSch"
	"emas\":{\"type\":\"object\",\"additionalProperties\":{\"$dynamicRef\":\""
	"#meta\"},\"default\":{}},\"propertyNames\":{\"$dynamicRef\":\"#meta\"},"
	"\"if\":{\"$dynamicRef\":\"#meta\"},\"then\":{\"$dynamicRef\":\"#meta\"},"
	"\"else\":{\"$dynamicRef\":\"#meta\"},\"allOf\":{\"$ref\":\"#/$defs/schem"
	"aArray\"},\"anyOf\":{\"$ref\":\"#/$defs/schemaArray\"},\"oneOf\":{\"$ref"
	"\":\"#/$defs/schemaArray\"},\"not\":{\"$dynamicRef\":\"#meta\"}},\"$defs"
	"\":{\"schemaArray\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"$dyn"
	"amicRef\":\"#meta\"}}}}", NULL
};
static const char *const P12[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/content\",\"$vocabulary\":{\""
	"https://json-schema.org/draft/2020-12/vocab/content\":true},\"$dynamicAn"
	"chor\":\"meta\",\"title\":\"Content vocabulary meta-schema\",\"type\":["
	"\"object\",\"boolean\"],\"properties\":{\"contentEncoding\":{\"type\":\""
	"string\"},\"contentMediaType\":{\"type\":\"string\"},\"contentSchema\":{"
	"\"$dynamicRef\":\"#meta\"}}}", NULL
};
static const char *const P13[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/core\",\"$vocabulary\":{\"htt"
	"ps://json-schema.org/draft/2020-12/vocab/core\":true},\"$dynamicAnchor\""
	":\"meta\",\"title\":\"Core vocabulary meta-schema\",\"type\":[\"object\""
	",\"boolean\"],\"properties\":{\"$id\":{\"$ref\":\"#/$defs/uriReferenceSt"
	"ring\",\"$comment\":\"Non-empty fragments not allowed.\",\"pattern\":\"^"
	"[^#]*#?$\"},\"$schema\":{\"$ref\":\"#/$defs/uriString\"},\"$ref\":{\"$re"
	"f\":\"#/$defs/uriReferenceString\"},\"$anchor\":{\"$ref\":\"#/$defs/anch"
	"orString\"},\"$dynamicRef\":{\"$ref\":\"#/$defs/uriReferenceString\"},\""
	"$dynamicAnchor\":{\"$ref\":\"#/$defs/anchorString\"},\"$vocabulary\":{\""
	"type\":\"object\",\"propertyNames\":{\"$ref\":\"#/$defs/uriString\"},\"a"
	"dditionalProperties\":{\"type\":\"boolean\"}},\"$comment\":{\"type\":\"s"
	"tring\"},\"$defs\":{\"type\":\"object\",\"additionalProperties\":{\"$dyn"
	"amicRef\":\"#meta\"}}},\"$defs\":{\"anchorString\":{\"type\":\"string\","
	"\"pattern\":\"^[A-Za-z_][-A-Za-z0-9._]*$\"},\"uriString\":{\"type\":\"st"
	"ring\",\"format\":\"uri\"},\"uriReferenceString\":{\"type\":\"string\","
	"\"format\":\"uri-reference\"}}}", NULL
};
static const char *const P14[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/format-annotation\",\"$vocabu"
	"lary\":{\"https://json-schema.org/draft/2020-12/vocab/format-annotation"
	"\":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Format vocabulary meta-"
	"schema for annotation results\",\"type\":[\"object\",\"boolean\"],\"prop"
	"erties\":{\"format\":{\"type\":\"string\"}}}", NULL
};
static const char *const P15[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/meta-data\",\"$vocabulary\":{"
	"\"https://json-schema.org/draft/2020-12/vocab/meta-data\":true},\"$dynam"
	"icAnchor\":\"meta\",\"title\":\"Meta-data vocabulary meta-schema\",\"typ"
	"e\":[\"object\",\"boolean\"],\"properties\":{\"title\":{\"type\":\"strin"
	"g\"},\"description\":{\"type\":\"string\"},\"default\":true,\"deprecated"
	"\":{\"type\":\"boolean\",\"default\":false},\"readOnly\":{\"type\":\"boo"
	"lean\",\"default\":false},\"writeOnly\":{\"type\":\"boolean\",\"default"
	"\":false},\"examples\":{\"type\":\"array\",\"items\":true}}}", NULL
};
static const char *const P16[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/unevaluated\",\"$vocabulary\""
	":{\"https://json-schema.org/draft/2020-12/vocab/unevaluated\":true},\"$d"
	"ynamicAnchor\":\"meta\",\"title\":\"Unevaluated applicator vocabulary me"
	"ta-schema\",\"type\":[\"object\",\"boolean\"],\"properties\":{\"unevalua"
	"tedItems\":{\"$dynamicRef\":\"#meta\"},\"unevaluatedProperties\":{\"$dyn"
	"amicRef\":\"#meta\"}}}", NULL
};
static const char *const P17[] = {
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\""
	"https://json-schema.org/draft/2020-12/meta/validation\",\"$vocabulary\":"
	"{\"https://json-schema.org/draft/2020-12/vocab/validation\":true},\"$dyn"
	"amicAnchor\":\"meta\",\"title\":\"Validation vocabulary meta-schema\",\""
	"type\":[\"object\",\"boolean\"],\"properties\":{\"type\":{\"anyOf\":[{\""
	"$ref\":\"#/$defs/simpleTypes\"},{\"type\":\"array\",\"items\":{\"$ref\":"
	"\"#/$defs/simpleTypes\"},\"minItems\":1,\"uniqueItems\":true}]},\"const"
	"\":true,\"enum\":{\"type\":\"array\",\"items\":true},\"multipleOf\":{\"t"
	"ype\":\"number\",\"exclusiveMinimum\":0},\"maximum\":{\"type\":\"number"
	"\"},\"exclusiveMaximum\":{\"type\":\"number\"},\"minimum\":{\"type\":\"n"
	"umber\"},\"exclusiveMinimum\":{\"type\":\"number\"},\"maxLength\":{\"$re"
	"f\":\"#/$defs/nonNegativeInteger\"},\"minLength\":{\"$ref\":\"#/$defs/no"
	"nNegativeIntegerDefault0\"},\"pattern\":{\"type\":\"string\",\"format\":"
	"\"regex\"},\"maxItems\":{\"$ref\":\"#/$defs/nonNegativeInteger\"},\"minI"
	"tems\":{\"$ref\":\"#/$defs/nonNegativeIntegerDefault0\"},\"uniqueItems\""
	":{\"type\":\"boolean\",\"default\":false},\"maxContains\":{\"$ref\":\"#/"
	"$defs/nonNegativeInteger\"},\"minContains\":{\"$ref\":\"#/$defs/nonNegat"
	"iveInteger\",\"default\":1},\"maxProperties\":{\"$ref\":\"#/$defs/nonNeg"
	"ativeInteger\"},\"minProperties\":{\"$ref\":\"#/$defs/nonNegativeInteger"
	"Default0\"},\"required\":{\"$ref\":\"#/$defs/stringArray\"},\"dependentR"
	"equired\":{\"type\":\"object\",\"additionalProperties\":{\"$ref\":\"#/$d"
	"efs/stringArray\"}}},\"$defs\":{\"nonNegativeInteger\":{\"type\":\"integ"
	"er\",\"minimum\":0},\"nonNegativeIntegerDefault0\":{\"$ref\":\"#/$defs/n"
	"onNegativeInteger\",\"default\":0},\"simpleTypes\":{\"enum\":[\"array\","
	"\"boolean\",\"integer\",\"null\",\"number\",\"object\",\"string\"]},\"st"
	"ringArray\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"unique"
	"Items\":true,\"default\":[]}}}", NULL
};

static const struct hm__metaschema META[] = {
	{ "http://json-schema.org/draft-04/schema", P0 },
	{ "http://json-schema.org/draft-06/schema", P1 },
	{ "http://json-schema.org/draft-07/schema", P2 },
	{ "https://json-schema.org/draft/2019-09/schema", P3 },
	{ "https://json-schema.org/draft/2020-12/schema", P4 },
	{ "https://json-schema.org/draft/2019-09/meta/applicator", P5 },
	{ "https://json-schema.org/draft/2019-09/meta/content", P6 },
	{ "https://json-schema.org/draft/2019-09/meta/core", P7 },
	{ "https://json-schema.org/draft/2019-09/meta/format", P8 },
	{ "https://json-schema.org/draft/2019-09/meta/meta-data", P9 },
	{ "https://json-schema.org/draft/2019-09/meta/validation", P10 },
	{ "https://json-schema.org/draft/2020-12/meta/applicator", P11 },
	{ "https://json-schema.org/draft/2020-12/meta/content", P12 },
	{ "https://json-schema.org/draft/2020-12/meta/core", P13 },
	{ "https://json-schema.org/draft/2020-12/meta/format-annotation", P14 },
	{ "https://json-schema.org/draft/2020-12/meta/meta-data", P15 },
	{ "https://json-schema.org/draft/2020-12/meta/unevaluated", P16 },
	{ "https://json-schema.org/draft/2020-12/meta/validation", P17 },
};

const struct hm__metaschema *
hm__metaschema_find(const char *uri, size_t n)
{
	size_t i;

	/* an empty fragment ("...schema#") names the document too */
	if (n && uri[n - 1] == '#')
		n--;
	for (i = 0; i < sizeof META / sizeof *META; i++)
		if (strlen(META[i].uri) == n && !memcmp(META[i].uri, uri, n))
			return &META[i];
	return NULL;
}
