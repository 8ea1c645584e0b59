package bqsql

import (
	"strings"
)

// BigQuery's UPPER and LOWER map case "according to the Unicode Character
// Database without taking into account language-specific mappings" (string
// functions reference): the full mappings, in which a character may become
// several (UPPER('ß') is 'SS', UPPER('ﬁ') 'FI'), and LOWER's final sigma (a
// capital sigma that ends a word is 'ς', elsewhere 'σ'). DuckDB's upper and
// lower map one character to one (UPPER('ß') is 'ẞ'). bq_upper maps the
// characters whose uppercase is several characters first, then lets upper
// do the rest; bq_lower does the same for İ and the final sigma. Strings
// holding none of these characters pay one regular-expression test.

// upperSpecial lists the characters whose full uppercase differs from the
// simple one-to-one mapping: Unicode's SpecialCasing.txt unconditional
// mappings (TestCaseMappingTable checks it against golang.org/x/text/cases).
var upperSpecial = [][2]string{
	{"ß", "SS"}, {"ŉ", "ʼN"}, {"ǰ", "J̌"}, {"ΐ", "Ϊ́"},
	{"ΰ", "Ϋ́"}, {"և", "ԵՒ"}, {"ẖ", "H̱"}, {"ẗ", "T̈"},
	{"ẘ", "W̊"}, {"ẙ", "Y̊"}, {"ẚ", "Aʾ"}, {"ὐ", "Υ̓"},
	{"ὒ", "Υ̓̀"}, {"ὔ", "Υ̓́"}, {"ὖ", "Υ̓͂"}, {"ᾀ", "ἈΙ"},
	{"ᾁ", "ἉΙ"}, {"ᾂ", "ἊΙ"}, {"ᾃ", "ἋΙ"}, {"ᾄ", "ἌΙ"},
	{"ᾅ", "ἍΙ"}, {"ᾆ", "ἎΙ"}, {"ᾇ", "ἏΙ"}, {"ᾈ", "ἈΙ"},
	{"ᾉ", "ἉΙ"}, {"ᾊ", "ἊΙ"}, {"ᾋ", "ἋΙ"}, {"ᾌ", "ἌΙ"},
	{"ᾍ", "ἍΙ"}, {"ᾎ", "ἎΙ"}, {"ᾏ", "ἏΙ"}, {"ᾐ", "ἨΙ"},
	{"ᾑ", "ἩΙ"}, {"ᾒ", "ἪΙ"}, {"ᾓ", "ἫΙ"}, {"ᾔ", "ἬΙ"},
	{"ᾕ", "ἭΙ"}, {"ᾖ", "ἮΙ"}, {"ᾗ", "ἯΙ"}, {"ᾘ", "ἨΙ"},
	{"ᾙ", "ἩΙ"}, {"ᾚ", "ἪΙ"}, {"ᾛ", "ἫΙ"}, {"ᾜ", "ἬΙ"},
	{"ᾝ", "ἭΙ"}, {"ᾞ", "ἮΙ"}, {"ᾟ", "ἯΙ"}, {"ᾠ", "ὨΙ"},
	{"ᾡ", "ὩΙ"}, {"ᾢ", "ὪΙ"}, {"ᾣ", "ὫΙ"}, {"ᾤ", "ὬΙ"},
	{"ᾥ", "ὭΙ"}, {"ᾦ", "ὮΙ"}, {"ᾧ", "ὯΙ"}, {"ᾨ", "ὨΙ"},
	{"ᾩ", "ὩΙ"}, {"ᾪ", "ὪΙ"}, {"ᾫ", "ὫΙ"}, {"ᾬ", "ὬΙ"},
	{"ᾭ", "ὭΙ"}, {"ᾮ", "ὮΙ"}, {"ᾯ", "ὯΙ"}, {"ᾲ", "ᾺΙ"},
	{"ᾳ", "ΑΙ"}, {"ᾴ", "ΆΙ"}, {"ᾶ", "Α͂"}, {"ᾷ", "Α͂Ι"},
	{"ᾼ", "ΑΙ"}, {"ῂ", "ῊΙ"}, {"ῃ", "ΗΙ"}, {"ῄ", "ΉΙ"},
	{"ῆ", "Η͂"}, {"ῇ", "Η͂Ι"}, {"ῌ", "ΗΙ"}, {"ῒ", "Ϊ̀"},
	{"ΐ", "Ϊ́"}, {"ῖ", "Ι͂"}, {"ῗ", "Ϊ͂"}, {"ῢ", "Ϋ̀"},
	{"ΰ", "Ϋ́"}, {"ῤ", "Ρ̓"}, {"ῦ", "Υ͂"}, {"ῧ", "Ϋ͂"},
	{"ῲ", "ῺΙ"}, {"ῳ", "ΩΙ"}, {"ῴ", "ΏΙ"}, {"ῶ", "Ω͂"},
	{"ῷ", "Ω͂Ι"}, {"ῼ", "ΩΙ"}, {"ﬀ", "FF"}, {"ﬁ", "FI"},
	{"ﬂ", "FL"}, {"ﬃ", "FFI"}, {"ﬄ", "FFL"}, {"ﬅ", "ST"},
	{"ﬆ", "ST"}, {"ﬓ", "ՄՆ"}, {"ﬔ", "ՄԵ"}, {"ﬕ", "ՄԻ"},
	{"ﬖ", "ՎՆ"}, {"ﬗ", "ՄԽ"},
}

// casedLetter and caseIgnorable are Unicode's Cased and Case_Ignorable
// properties as RE2 classes, as far as the final-sigma rule needs them:
// letters with case, and the marks, format characters, modifier letters and
// word-internal punctuation (apostrophes, the full stop, the colon, the
// middle dot) that may stand between a letter and the sigma.
const (
	casedLetter   = `\p{Lu}\p{Ll}\p{Lt}`
	caseIgnorable = `\p{Mn}\p{Me}\p{Cf}\p{Lm}\p{Sk}'.:·’‘`
)

// finalSigma matches a capital sigma preceded by a cased letter (and
// case-ignorable characters) and not followed by one (after case-ignorable
// characters): Unicode's Final_Sigma condition. The sigma is group-free, so
// the replacement keeps groups 1 and 2 around a final ς.
var finalSigma = `([` + casedLetter + `][` + caseIgnorable + `]*)Σ([` + caseIgnorable + `]*(?:[^` + casedLetter + caseIgnorable + `]|$))`

// caseMacros defines bq_upper and bq_lower.
func caseMacros() string {
	var keys, entries []string
	for _, p := range upperSpecial {
		keys = append(keys, p[0])
		entries = append(entries, duckString(p[0])+": "+duckString(p[1]))
	}
	// Every special character is outside ASCII, so a string whose byte
	// length equals its length in characters (ASCII only, nearly every
	// MIMIC-IV value) skips the regular expression: LOWER(drug) LIKE
	// '%insulin%' tried a pattern on every row of prescriptions, which
	// made it three to four times slower than DuckDB's own lower.
	return `CREATE OR REPLACE TEMP MACRO bq_upper(s) AS upper(CASE WHEN strlen(s) <> length(s) AND regexp_matches(s, '[` + strings.Join(keys, "") + `]')
	THEN array_to_string(list_transform(string_split(s, ''), bq_c -> coalesce(MAP {` + strings.Join(entries, ", ") + `}[bq_c], bq_c)), '')
	ELSE s END);
CREATE OR REPLACE TEMP MACRO bq_lower(s) AS lower(CASE WHEN strlen(s) <> length(s) AND regexp_matches(s, '[Σİ]')
	THEN regexp_replace(replace(s, 'İ', 'i̇'), ` + duckString(finalSigma) + `, '\1ς\2', 'g')
	ELSE s END);
`
}

// caseFn renders LOWER and UPPER: over BYTES DuckDB's ASCII-only mapping
// (BigQuery maps only ASCII letters of BYTES), over STRING the full mapping.
func caseFn(c *call, name string) string {
	// LOWER and UPPER take STRING or BYTES only (string functions
	// reference); BigQuery rejects any other argument at analysis.
	switch t := baseType(c.e.exprType(c.args[0])); t {
	case "", "STRING", "BYTES":
	default:
		c.e.invalid(c.it, "No matching signature for function %s for argument types: %s. Supported signatures: %s(STRING); %s(BYTES)",
			strings.ToUpper(name), t, strings.ToUpper(name), strings.ToUpper(name))
		return ""
	}
	if c.e.isBytes(c.args[0]) {
		return name + "(" + c.arg(0) + ")"
	}
	return "bq_" + name + "(" + c.arg(0) + ")"
}
