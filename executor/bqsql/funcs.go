package bqsql

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
)

// funcs maps BigQuery function names to their translation. A BigQuery
// function missing here is reported as unsupported; a name missing from
// bqFunctions too is reported as unknown, as BigQuery would.
var funcs map[string]fnSpec

func init() {
	agg := func(min, max int, duck string) fnSpec { return fnSpec{min: min, max: max, agg: true, duck: duck} }
	win := func(min, max int, mods string) fnSpec { return fnSpec{min: min, max: max, window: true, mods: mods} }
	fn := func(min, max int, duck string) fnSpec { return fnSpec{min: min, max: max, duck: duck} }
	emit := func(min, max int, f func(c *call) string) fnSpec { return fnSpec{min: min, max: max, emit: f} }
	// macro wraps the arguments in a prelude macro of the given name.
	macro := func(min, max int, name string) fnSpec {
		return fnSpec{min: min, max: max, emit: func(c *call) string { return name + "(" + c.argsText() + ")" }}
	}

	funcs = map[string]fnSpec{
		// Aggregates.
		"COUNT":       agg(0, 1, "count"),
		"SUM":         {min: 1, max: 1, agg: true, emit: numericAgg("sum")},
		"AVG":         {min: 1, max: 1, agg: true, emit: numericAgg("avg")},
		"MIN":         {min: 1, max: 1, agg: true, duck: "min", emit: minNaN},
		"MAX":         agg(1, 1, "max"),
		"STDDEV":      {min: 1, max: 1, agg: true, duck: "stddev_samp", emit: statNaN("stddev_samp", "2")},
		"STDDEV_SAMP": {min: 1, max: 1, agg: true, duck: "stddev_samp", emit: statNaN("stddev_samp", "2")},
		"STDDEV_POP":  {min: 1, max: 1, agg: true, duck: "stddev_pop", emit: statNaN("stddev_pop", "1")},
		"VARIANCE":    {min: 1, max: 1, agg: true, duck: "var_samp", emit: statNaN("var_samp", "2")},
		"VAR_SAMP":    {min: 1, max: 1, agg: true, duck: "var_samp", emit: statNaN("var_samp", "2")},
		"VAR_POP":     {min: 1, max: 1, agg: true, duck: "var_pop", emit: statNaN("var_pop", "1")},
		"CORR":        {min: 2, max: 2, agg: true, emit: pairStatNaN("corr", "2")},
		"COVAR_POP":   {min: 2, max: 2, agg: true, emit: pairStatNaN("covar_pop", "1")},
		"COVAR_SAMP":  {min: 2, max: 2, agg: true, emit: pairStatNaN("covar_samp", "2")},
		"ANY_VALUE":   agg(1, 1, "any_value"),
		"BIT_AND":     agg(1, 1, "bit_and"),
		"BIT_OR":      agg(1, 1, "bit_or"),
		"BIT_XOR":     agg(1, 1, "bit_xor"),
		// count_if is NULL over no rows; BigQuery's COUNTIF is 0.
		"COUNTIF": {min: 1, max: 1, agg: true, emit: func(c *call) string {
			if c.distinct {
				// The distinct TRUE values: 0 or 1.
				return "count(DISTINCT CASE WHEN " + c.arg(0) + " THEN TRUE END)"
			}
			return "count(CASE WHEN " + c.arg(0) + " THEN 1 END)"
		}},
		"LOGICAL_AND": agg(1, 1, "bool_and"),
		"LOGICAL_OR":  agg(1, 1, "bool_or"),
		"MAX_BY":      agg(2, 2, "arg_max"),
		"MIN_BY":      agg(2, 2, "arg_min"),
		"GROUPING":    fn(1, 1, "grouping"),
		"ARRAY_AGG":   {min: 1, max: 1, agg: true, mods: "nol", emit: arrayAgg},
		"STRING_AGG":  {min: 1, max: 2, agg: true, mods: "ol", emit: stringAgg},
		"APPROX_COUNT_DISTINCT": {min: 1, max: 1, agg: true, emit: func(c *call) string {
			return "count(DISTINCT " + c.arg(0) + ")"
		}},
		"APPROX_QUANTILES": {min: 2, max: 2, agg: true, mods: "n", emit: func(c *call) string {
			return c.e.approxQuantiles(c, nil)
		}},
		"APPROX_TOP_COUNT": {min: 2, max: 2, agg: true, emit: approxTopCount},

		// Analytic functions.
		"ROW_NUMBER":      win(0, 0, ""),
		"RANK":            win(0, 0, ""),
		"DENSE_RANK":      win(0, 0, ""),
		"PERCENT_RANK":    win(0, 0, ""),
		"CUME_DIST":       win(0, 0, ""),
		"NTILE":           win(1, 1, ""),
		"LAG":             win(1, 3, ""),
		"LEAD":            win(1, 3, ""),
		"FIRST_VALUE":     win(1, 1, "n"),
		"LAST_VALUE":      win(1, 1, "n"),
		"NTH_VALUE":       win(2, 2, "n"),
		"PERCENTILE_CONT": {min: 2, max: 2, window: true, mods: "n", emit: percentile},
		"PERCENTILE_DISC": {min: 2, max: 2, window: true, mods: "n", emit: percentile},

		// Conditionals.
		"IF": emit(3, 3, func(c *call) string {
			return "(CASE WHEN " + c.arg(0) + " THEN " + c.arg(1) + " ELSE " + c.arg(2) + " END)"
		}),
		"JUSTIFY_DAYS":     fn(1, 1, "bq_justify_days"),
		"JUSTIFY_HOURS":    fn(1, 1, "bq_justify_hours"),
		"JUSTIFY_INTERVAL": fn(1, 1, "bq_justify_interval"),

		"IFNULL": emit(2, 2, func(c *call) string {
			if mixedCivil(c) {
				return ""
			}
			return "COALESCE(" + c.argsText() + ")"
		}),
		"COALESCE": emit(1, -1, func(c *call) string {
			if mixedCivil(c) {
				return ""
			}
			return "COALESCE(" + c.argsText() + ")"
		}),
		"NULLIF": fn(2, 2, "NULLIF"),
		"ZEROIFNULL": emit(1, 1, func(c *call) string {
			return "COALESCE(" + c.arg(0) + ", 0)"
		}),
		"NULLIFZERO": emit(1, 1, func(c *call) string { return "NULLIF(" + c.arg(0) + ", 0)" }),

		// Mathematics.
		"ABS":         fn(1, 1, "abs"),
		"SIGN":        fn(1, 1, "sign"),
		"SQRT":        fn(1, 1, "sqrt"),
		"CBRT":        macro(1, 1, "bq_cbrt"),
		"EXP":         fn(1, 1, "exp"),
		"LN":          emit(1, 1, func(c *call) string { return "ln(bq_log_arg(" + c.arg(0) + "))" }),
		"LOG10":       emit(1, 1, func(c *call) string { return "log10(bq_log_arg(" + c.arg(0) + "))" }),
		"LOG":         emit(1, 2, logFn),
		"POW":         fn(2, 2, "pow"),
		"POWER":       fn(2, 2, "pow"),
		"SIN":         fn(1, 1, "sin"),
		"COS":         fn(1, 1, "cos"),
		"TAN":         fn(1, 1, "tan"),
		"ASIN":        fn(1, 1, "asin"),
		"ACOS":        fn(1, 1, "acos"),
		"ATAN":        fn(1, 1, "atan"),
		"ATAN2":       fn(2, 2, "atan2"),
		"COT":         fn(1, 1, "cot"),
		"FLOOR":       emit(1, 1, func(c *call) string { return decimalOr(c, "floor", "bq_floor("+c.arg(0)+")") }),
		"CEIL":        emit(1, 1, func(c *call) string { return decimalOr(c, "ceil", "bq_ceil("+c.arg(0)+")") }),
		"CEILING":     emit(1, 1, func(c *call) string { return decimalOr(c, "ceil", "bq_ceil("+c.arg(0)+")") }),
		"ROUND":       emit(1, 3, roundFn),
		"TRUNC":       emit(1, 2, truncFn),
		"MOD":         macro(2, 2, "bq_mod"),
		"DIV":         macro(2, 2, "bq_intdiv"),
		"SAFE_DIVIDE": macro(2, 2, "bq_safe_divide"),
		"IEEE_DIVIDE": emit(2, 2, func(c *call) string {
			return "(CAST(" + c.arg(0) + " AS DOUBLE) / CAST(" + c.arg(1) + " AS DOUBLE))"
		}),
		"SAFE_ADD":      emit(2, 2, func(c *call) string { return safeOperator(c, "+") }),
		"SAFE_SUBTRACT": emit(2, 2, func(c *call) string { return safeOperator(c, "-") }),
		"SAFE_MULTIPLY": emit(2, 2, func(c *call) string { return safeOperator(c, "*") }),
		"SAFE_NEGATE":   emit(1, 1, func(c *call) string { return safeOperator(c, "-") }),
		"GREATEST":      emit(1, -1, func(c *call) string { return nullStrict(c, "greatest") }),
		"LEAST":         emit(1, -1, func(c *call) string { return nullStrict(c, "least") }),
		"IS_INF":        fn(1, 1, "isinf"),
		"IS_NAN":        fn(1, 1, "isnan"),
		"RAND":          fn(0, 0, "random"),
		"GENERATE_UUID": emit(0, 0, func(*call) string { return "CAST(uuid() AS VARCHAR)" }),

		// Strings.
		"LOWER":            emit(1, 1, func(c *call) string { return caseFn(c, "lower") }),
		"UPPER":            emit(1, 1, func(c *call) string { return caseFn(c, "upper") }),
		"LENGTH":           macro(1, 1, "bq_length"),
		"CHAR_LENGTH":      fn(1, 1, "length"),
		"CHARACTER_LENGTH": fn(1, 1, "length"),
		"BYTE_LENGTH":      emit(1, 1, byteLength),
		"OCTET_LENGTH":     emit(1, 1, byteLength),
		"TRIM":             emit(1, 2, trimFn),
		"LTRIM":            emit(1, 2, trimFn),
		"RTRIM":            emit(1, 2, trimFn),
		"REPLACE":          fn(3, 3, "replace"),
		"REVERSE":          fn(1, 1, "reverse"),
		// REPEAT has a STRING and a BYTES signature, STRING first (string
		// functions reference); an untyped NULL matches both and BigQuery
		// takes the first, so REPEAT(NULL, n) is a STRING. DuckDB would
		// take its BLOB overload.
		"REPEAT": emit(2, 2, func(c *call) string {
			s := c.arg(0)
			if a := c.args[0]; len(a) == 1 && a[0].is("NULL") && !a[0].synthetic() {
				s = "CAST(NULL AS VARCHAR)"
			}
			return "bq_repeat(" + s + ", " + c.arg(1) + ")"
		}),
		"STARTS_WITH": fn(2, 2, "starts_with"),
		"ENDS_WITH":   fn(2, 2, "ends_with"),
		"STRPOS":      macro(2, 2, "bq_strpos"),
		"INSTR": emit(2, 4, func(c *call) string {
			// instr is INSTR(s, t) exactly; a position or occurrence goes
			// through bq_instr, which lists the matches.
			if len(c.args) == 2 {
				return "instr(" + c.argsText() + ")"
			}
			if len(c.args) == 3 {
				return "bq_instr(" + c.argsText() + ", 1)"
			}
			return "bq_instr(" + c.argsText() + ")"
		}),
		"LEFT":           macro(2, 2, "bq_left"),
		"RIGHT":          macro(2, 2, "bq_right"),
		"ASCII":          fn(1, 1, "ascii"),
		"CHR":            fn(1, 1, "chr"),
		"UNICODE":        macro(1, 1, "bq_unicode"),
		"TRANSLATE":      fn(3, 3, "translate"),
		"EDIT_DISTANCE":  fn(2, 2, "levenshtein"),
		"LPAD":           emit(2, 3, func(c *call) string { return padFn(c, "lpad") }),
		"RPAD":           emit(2, 3, func(c *call) string { return padFn(c, "rpad") }),
		"SUBSTR":         emit(2, 3, substr),
		"SUBSTRING":      emit(2, 3, substr),
		"CONCAT":         emit(1, -1, concatFn),
		"FORMAT":         emit(1, -1, formatFn),
		"TO_JSON_STRING": emit(1, 2, toJSONString),
		"SPLIT": emit(1, 2, func(c *call) string {
			if len(c.args) == 1 {
				return "bq_split(" + c.arg(0) + ", ',')"
			}
			return "bq_split(" + c.argsText() + ")"
		}),
		"REGEXP_CONTAINS": emit(2, 2, func(c *call) string {
			return "regexp_matches(" + c.arg(0) + ", " + regexpPattern(c) + ")"
		}),
		"REGEXP_EXTRACT":     emit(2, 4, regexpExtract),
		"REGEXP_SUBSTR":      emit(2, 2, regexpExtract),
		"REGEXP_EXTRACT_ALL": emit(2, 2, regexpExtract),
		"REGEXP_REPLACE": emit(3, 3, func(c *call) string {
			return "regexp_replace(" + c.arg(0) + ", " + regexpPattern(c) + ", " + c.arg(2) + ", 'g')"
		}),

		// Arrays.
		"ARRAY_LENGTH":  fn(1, 1, "len"),
		"ARRAY_REVERSE": fn(1, 1, "list_reverse"),
		"ARRAY_TO_STRING": emit(2, 3, func(c *call) string {
			// Without null_text NULL elements are skipped, as DuckDB does;
			// with it they are replaced by it.
			if len(c.args) == 2 {
				return "array_to_string(" + c.argsText() + ")"
			}
			return "array_to_string(list_transform(" + c.arg(0) + ", lambda bq_x: coalesce(bq_x, " + c.arg(2) + ")), " + c.arg(1) + ")"
		}),
		"ARRAY_CONCAT": emit(1, -1, func(c *call) string {
			out := c.arg(0)
			for k := 1; k < len(c.args); k++ {
				out = "list_concat(" + out + ", " + c.arg(k) + ")"
			}
			return out
		}),
		"ARRAY_INCLUDES":      fn(2, 2, "list_contains"),
		"GENERATE_ARRAY":      emit(2, 3, generateArray),
		"GENERATE_DATE_ARRAY": emit(2, 3, generateDateArray),
		"ARRAY":               emit(0, -1, func(c *call) string { return "ARRAY(" + c.e.text(c.group.kids) + ")" }),
		"STRUCT":              emit(0, -1, structFn),

		// Conversion.
		"CAST":      emit(1, 1, func(c *call) string { return c.e.cast(c, false) }),
		"SAFE_CAST": emit(1, 1, func(c *call) string { return c.e.cast(c, true) }),

		// Dates and times (datetime.go).
		"CURRENT_DATE":      emit(0, 1, currentFn("current_date")),
		"CURRENT_DATETIME":  emit(0, 1, currentFn("CAST(current_localtimestamp() AS TIMESTAMP)")),
		"CURRENT_TIMESTAMP": emit(0, 0, currentFn("get_current_timestamp()")),
		"CURRENT_TIME":      emit(0, 1, currentFn("CAST(current_localtime() AS TIME)")),
		"DATE":              emit(1, 3, dateFn),
		"DATETIME":          emit(1, 6, datetimeFn),
		"TIMESTAMP":         emit(1, 2, timestampFn),
		"STRING":            emit(1, 2, stringFn),
		"TIME":              emit(1, 3, timeFn),
		"EXTRACT":           emit(1, 1, func(c *call) string { return c.e.extract(c) }),
		"DATE_DIFF":         emit(3, 3, diffFn("date")),
		"DATETIME_DIFF":     emit(3, 3, diffFn("datetime")),
		"TIMESTAMP_DIFF":    emit(3, 3, diffFn("timestamp")),
		"DATE_TRUNC":        emit(2, 2, truncTimeFn("date")),
		"DATETIME_TRUNC":    emit(2, 2, truncTimeFn("datetime")),
		"TIMESTAMP_TRUNC":   emit(2, 3, truncTimeFn("timestamp")),
		"DATE_ADD":          emit(2, 2, addFn("date", 1)),
		"DATE_SUB":          emit(2, 2, addFn("date", -1)),
		"DATETIME_ADD":      emit(2, 2, addFn("datetime", 1)),
		"DATETIME_SUB":      emit(2, 2, addFn("datetime", -1)),
		"TIMESTAMP_ADD":     emit(2, 2, addFn("timestamp", 1)),
		"TIMESTAMP_SUB":     emit(2, 2, addFn("timestamp", -1)),
		"FORMAT_DATE":       emit(2, 2, func(c *call) string { return c.e.formatTime(c) }),
		"FORMAT_DATETIME":   emit(2, 2, func(c *call) string { return c.e.formatTime(c) }),
		"FORMAT_TIMESTAMP":  emit(2, 3, func(c *call) string { return c.e.formatTime(c) }),
		"PARSE_DATE":        emit(2, 2, func(c *call) string { return c.e.parseTime(c, false) }),
		"PARSE_DATETIME":    emit(2, 2, func(c *call) string { return c.e.parseTime(c, false) }),
		"PARSE_TIMESTAMP":   emit(2, 3, func(c *call) string { return c.e.parseTime(c, false) }),
		"LAST_DAY":          emit(1, 2, lastDayFn),
		"UNIX_DATE":         macro(1, 1, "bq_unix_date"),
		"UNIX_SECONDS":      macro(1, 1, "bq_unix_seconds"),
		"UNIX_MILLIS":       macro(1, 1, "bq_unix_millis"),
		"UNIX_MICROS":       macro(1, 1, "bq_unix_micros"),
		"TIMESTAMP_SECONDS": macro(1, 1, "bq_timestamp_seconds"),
		"TIMESTAMP_MILLIS":  macro(1, 1, "bq_timestamp_millis"),
		"TIMESTAMP_MICROS":  macro(1, 1, "bq_timestamp_micros"),
		"FARM_FINGERPRINT":  fn(1, 1, farmFunc),
		"DATE_FROM_UNIX_DATE": emit(1, 1, func(c *call) string {
			// DuckDB adds an INTEGER to a DATE, not a BIGINT.
			return "(DATE '1970-01-01' + CAST(bq_int64(" + c.arg(0) + ") AS INTEGER))"
		}),
	}
}

func logFn(c *call) string {
	if len(c.args) == 1 {
		return "ln(bq_log_arg(" + c.arg(0) + "))"
	}
	return "bq_log(" + c.arg(0) + ", " + c.arg(1) + ")"
}

func roundFn(c *call) string {
	if len(c.args) == 3 {
		// ROUND(NUMERIC, digits, 'ROUND_HALF_EVEN' | 'ROUND_HALF_AWAY_FROM_ZERO').
		c.e.unsupported(c.it, "ROUND with a rounding mode is not supported")
		return ""
	}
	d := int64(0)
	if len(c.args) == 2 {
		v, ok := literalInt(c.args[1])
		if !ok || v < minRoundDigits || v > maxRoundDigits {
			x, n := "bq_float("+c.arg(0)+")", "bq_int64("+c.arg(1)+")"
			return roundCall("bq_round_n("+x+", "+n+")", x, n)
		}
		d = v
	}
	if dt := decimalType(c); dt != "" {
		return decimalRound(c, "round", d, dt)
	}
	return roundCall(roundMacro(int(d))+"("+c.arg(0)+")", "CAST("+c.arg(0)+" AS DOUBLE)", strconv.FormatInt(d, 10))
}

func truncFn(c *call) string {
	if d, ok := literalInt(argAt(c.args, 1)); len(c.args) == 1 || ok && d >= minRoundDigits && d <= maxRoundDigits {
		if dt := decimalType(c); dt != "" {
			return decimalRound(c, "trunc", d, dt)
		}
	}
	if len(c.args) == 1 {
		return "bq_trunc(" + c.arg(0) + ", 0)"
	}
	return "bq_trunc(" + c.argsText() + ")"
}

// decimalType is the DuckDB type of a NUMERIC or BIGNUMERIC first argument
// (as the statement model or the bridge's typing knows it), or "".
// ROUND, TRUNC, CEIL and FLOOR of NUMERIC return NUMERIC, computed exactly:
// ROUND(NUMERIC '2.675', 2) is 2.68, half away from zero (mathematical
// functions reference). Through FLOAT64 it came back as FLOAT64 and
// rounded the binary value (2.67).
func decimalType(c *call) string {
	switch baseType(c.e.exprType(c.args[0])) {
	case "NUMERIC":
		return "DECIMAL(38, 9)"
	case "BIGNUMERIC":
		return "DECIMAL(38, 18)"
	}
	return ""
}

// decimalRound renders ROUND or TRUNC of a decimal to d digits, kept in
// the argument's type.
func decimalRound(c *call, fn string, d int64, duck string) string {
	return "CAST(" + fn + "(" + c.arg(0) + ", " + strconv.FormatInt(d, 10) + ") AS " + duck + ")"
}

// decimalOr renders FLOOR or CEIL: DuckDB's, kept in the type, for a
// decimal argument; otherwise other (the FLOAT64 macro).
func decimalOr(c *call, fn, other string) string {
	if dt := decimalType(c); dt != "" {
		return "CAST(" + fn + "(" + c.arg(0) + ") AS " + dt + ")"
	}
	return other
}

func padFn(c *call, name string) string {
	if len(c.args) == 2 {
		return "bq_" + name + "(" + c.argsText() + ", ' ')"
	}
	return "bq_" + name + "(" + c.argsText() + ")"
}

// nullStrict renders GREATEST/LEAST, which in BigQuery return NULL when any
// argument is NULL (DuckDB's skip NULLs), through a list so that each
// argument appears once.
func nullStrict(c *call, name string) string {
	return "bq_" + name + "([" + c.argsText() + "])"
}

// concatFn renders CONCAT: NULL if any argument is NULL; other types are
// cast to STRING first, with BigQuery's formatting. An argument already
// text (a literal, a call that returns its argument's STRING or BYTES) is
// not wrapped: DuckDB expands bq_to_string in place with its argument
// written many times over, so wrapping nested CONCATs of SUBSTRs grew
// exponentially (four levels took minutes to bind), and BYTES joined as
// bytes, not as their escaped text.
func concatFn(c *call) string {
	parts := make([]string, len(c.args))
	for k := range c.args {
		if c.e.isText(c.args[k]) {
			parts[k] = c.arg(k)
			continue
		}
		parts[k] = "bq_to_string(" + c.arg(k) + ")"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// isText reports whether items are certainly a STRING or BYTES value: a
// literal, a column the bridge types so, a CAST to either, or a call whose
// catalogued result is text.
func (e *emitter) isText(items []*item) bool {
	if len(items) == 2 && items[1].isGroup("(") {
		if sig, ok := signatures[items[0].upper()]; ok && sig.text() {
			return true
		}
	}
	switch e.exprType(items) {
	case "STRING", "lit:STRING", "BYTES":
		return true
	}
	return false
}

// formatFn renders FORMAT with a literal format string through printf; the
// format elements BigQuery and printf share are passed through.
func formatFn(c *call) string {
	lit, ok := c.e.literalString(c.args[0])
	if !ok {
		c.e.unsupported(c.it, "FORMAT with a non-literal format string is not supported")
		return ""
	}
	tooWide := ""
	for i := 0; i < len(lit); i++ {
		if lit[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(lit) && strings.IndexByte("-+ #0123456789.", lit[j]) >= 0 {
			j++
		}
		if tooWide == "" {
			tooWide = formatWidth(lit[i+1 : j])
		}
		if j >= len(lit) {
			c.e.invalid(c.it, "Invalid format specifier at end of FORMAT string")
			return ""
		}
		switch lit[j] {
		case 'd', 'i', 's', 'f', 'F', 'e', 'E', 'g', 'G', 'x', 'X', 'o', '%':
		default:
			c.e.unsupported(c.it, "FORMAT specifier %%%c is not supported", lit[j])
			return ""
		}
		if strings.ContainsRune(lit[i:j], '\'') {
			c.e.unsupported(c.it, "FORMAT grouping flag is not supported")
			return ""
		}
		i = j
	}
	if tooWide != "" {
		return "CAST(error(" + duckString(tooWide) + ") AS VARCHAR)"
	}
	rest := make([]string, 0, len(c.args))
	rest = append(rest, duckString(lit))
	for k := 1; k < len(c.args); k++ {
		rest = append(rest, c.arg(k))
	}
	return "printf(" + strings.Join(rest, ", ") + ")"
}

// literalString returns the value of an argument that is a single string
// literal.
func (e *emitter) literalString(items []*item) (string, bool) {
	if len(items) != 1 || items[0].tok.Kind != String || items[0].synthetic() || items[0].group {
		return "", false
	}
	v, err := items[0].tok.Value()
	if err != nil {
		return "", false
	}
	return v, true
}

// literalInt returns the value of an argument that is an integer literal,
// possibly negative.
func literalInt(items []*item) (int64, bool) {
	neg := false
	if len(items) == 2 && items[0].isPunct("-") {
		neg = true
		items = items[1:]
	}
	if len(items) != 1 || items[0].tok.Kind != Number || items[0].synthetic() || items[0].tok.IsFloat() {
		return 0, false
	}
	v, err := strconv.ParseInt(items[0].tok.Text, 0, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// isStringLiteral reports whether items are one string literal.
func isStringLiteral(items []*item) bool {
	return len(items) == 1 && items[0].tok.Kind == String && !items[0].synthetic()
}

// literalFloat returns the value of a numeric literal argument.
func literalFloat(items []*item) (float64, bool) {
	neg := false
	if len(items) == 2 && (items[0].isPunct("-") || items[0].isPunct("+")) {
		neg = items[0].isPunct("-")
		items = items[1:]
	}
	if len(items) != 1 || items[0].tok.Kind != Number || items[0].synthetic() {
		return 0, false
	}
	v, err := strconv.ParseFloat(items[0].tok.Text, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// unicodeSpace is the White_Space property's characters, which BigQuery's
// one-argument TRIM, LTRIM and RTRIM remove (DuckDB's remove only spaces).
const unicodeSpace = " \t\n\v\f\r\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// trimFn renders TRIM, LTRIM and RTRIM: with one argument they remove
// whitespace as Unicode defines it.
func trimFn(c *call) string {
	chars := duckString(unicodeSpace)
	if len(c.args) == 2 {
		chars = c.arg(1)
	}
	return strings.ToLower(c.name) + "(" + c.arg(0) + ", " + chars + ")"
}

// regexpExtract renders REGEXP_EXTRACT(_ALL): BigQuery returns the capture
// group when the pattern has one, the whole match otherwise, and NULL when
// nothing matches.
func regexpExtract(c *call) string {
	if len(c.args) > 2 {
		c.e.unsupported(c.it, "%s with a position or occurrence is not supported", c.name)
		return ""
	}
	pat, ok := c.e.literalString(c.args[1])
	if !ok {
		c.e.unsupported(c.it, "%s with a non-literal pattern is not supported", c.name)
		return ""
	}
	s, r := c.arg(0), regexpPattern(c)
	groups := 0
	if re2Parses(pat) {
		groups = captureGroups(pat)
	}
	if groups > 1 {
		c.e.invalid(c.it, "Regular expressions passed into extraction functions must not have more than 1 capturing group")
		return ""
	}
	if c.name == "REGEXP_EXTRACT_ALL" {
		return fmt.Sprintf("regexp_extract_all(%s, %s, %d)", s, r, groups)
	}
	return fmt.Sprintf("(CASE WHEN regexp_matches(%s, %s) THEN regexp_extract(%s, %s, %d) END)", s, r, s, r, groups)
}

// regexpPattern renders the pattern argument of a REGEXP_ function. A
// pattern RE2 cannot parse fails the call when it is evaluated, not when
// the query is analysed: SAFE.REGEXP_CONTAINS("abc", "(") is NULL (GoogleSQL
// compliance safe_regexp_contains; SAFE. catches only errors raised while
// the function runs), and a released query whose invalid pattern no row
// reached ran on BigQuery. DuckDB compiles a constant pattern when it binds
// the query, which fails it even over no rows; so a literal pattern that
// Go's regexp (RE2's syntax) rejects is made to depend on the row, and
// DuckDB's RE2 compiles it, and fails, on the first row that reaches it.
// A NULL value gives NULL before the pattern is read, as any function of a
// NULL argument. Where Go rejects a pattern RE2 accepts, the pattern is
// only compiled per row: slower, with the same result.
func regexpPattern(c *call) string {
	pat, ok := c.e.literalString(c.args[1])
	if !ok {
		return c.arg(1)
	}
	if re2Parses(pat) {
		return c.arg(1)
	}
	return "(CASE WHEN " + c.arg(0) + " IS NULL THEN NULL ELSE " + c.arg(1) + " END)"
}

// re2Parses reports whether Go's regexp parser, which reads RE2's syntax,
// accepts the pattern (parsing is all the check needs; compiling costs
// more).
func re2Parses(pat string) bool {
	_, err := syntax.Parse(pat, syntax.Perl)
	return err == nil
}

// captureGroups counts capturing groups in an RE2 pattern.
func captureGroups(p string) int {
	n := 0
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			if i+1 < len(p) && p[i+1] == '?' {
				// (?P<name>…) captures; (?:…) and flags do not.
				if i+2 < len(p) && p[i+2] == 'P' {
					n++
				}
				continue
			}
			n++
		}
	}
	return n
}

// arrayAgg renders ARRAY_AGG with DuckDB's list().
func arrayAgg(c *call) string {
	x := c.arg(0)
	var b strings.Builder
	b.WriteString("list(")
	if c.distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(x)
	if c.orderBy != nil {
		b.WriteString(" ORDER BY " + c.e.text(c.orderBy))
	}
	b.WriteString(")")
	if c.nulls == "IGNORE" {
		b.WriteString(" FILTER (WHERE " + x + " IS NOT NULL)")
	}
	out := b.String()
	if c.limit != nil {
		if c.over != nil {
			c.e.invalid(c.it, "LIMIT is not allowed in analytic ARRAY_AGG")
		}
		out = "bq_nonempty(list_slice(" + out + ", 1, bq_int64(" + c.e.text(c.limit) + ")))"
	}
	return out
}

// stringAgg renders STRING_AGG; BigQuery's default separator is ",".
func stringAgg(c *call) string {
	sep := "','"
	if len(c.args) == 2 {
		if d := c.args[1]; len(d) == 1 && d[0].is("NULL") && !d[0].synthetic() {
			c.e.invalid(d[0], "Argument 2 to STRING_AGG must be non-NULL")
			return ""
		}
		sep = c.arg(1)
	}
	x := c.arg(0)
	order := ""
	if c.orderBy != nil {
		order = " ORDER BY " + c.e.text(c.orderBy)
	}
	dist := ""
	if c.distinct {
		dist = "DISTINCT "
	}
	// The non-NULL values are listed and joined by bq_string_join, which
	// keeps their type: DuckDB's string_agg takes no BYTES (bytes.go).
	l := "list(" + dist + x + order + ") FILTER (WHERE " + x + " IS NOT NULL)"
	if c.over != nil {
		l += " OVER " + c.e.text(c.over[1:])
		c.overDone = true
	}
	if c.limit != nil {
		l = "list_slice(" + l + ", 1, bq_int64(" + c.e.text(c.limit) + "))"
	}
	return "bq_string_join(" + l + ", " + sep + ")"
}

// percentile renders PERCENTILE_CONT / PERCENTILE_DISC, which BigQuery only
// has as analytic functions with a literal fraction and a window of
// PARTITION BY only.
func percentile(c *call) string {
	p, ok := literalFloat(c.args[1])
	if a := c.args[1]; !ok && len(a) == 2 && (a[0].is("NUMERIC") || a[0].is("BIGNUMERIC")) && a[1].tok.Kind == String {
		// NUMERIC '0.5' is a literal to BigQuery, which then computes in
		// NUMERIC: valid SQL the engine does not reproduce, so not the
		// model's error.
		c.e.unsupported(c.it, "%s with a %s fraction is not supported", c.name, a[0].upper())
		return ""
	}
	if !ok {
		c.e.invalid(c.it, "Argument 2 to %s must be a literal or query parameter", c.name)
		return ""
	}
	if p < 0 || p > 1 {
		c.e.invalid(c.it, "Argument 2 to %s must be in the range [0, 1]", c.name)
		return ""
	}
	if w := c.over[1]; w.group {
		for _, it := range w.kids {
			if it.is("ORDER") || it.is("ROWS") || it.is("RANGE") {
				c.e.invalid(it, "Window ORDER BY or framing is not allowed for analytic function %s", c.name)
				return ""
			}
		}
	}
	if c.name == "PERCENTILE_CONT" && !exactNumeric(c.e, c.args[0]) {
		return percentileContFloat(c, p)
	}
	if c.nulls == "RESPECT" {
		c.e.unsupported(c.it, "%s with RESPECT NULLS is not supported", c.name)
		return ""
	}
	name := "quantile_cont"
	if c.name == "PERCENTILE_DISC" {
		name = "quantile_disc"
	}
	return name + "(" + c.arg(0) + ", " + strconv.FormatFloat(p, 'g', -1, 64) + ")"
}

// approxQuantiles renders APPROX_QUANTILES(x, n), optionally with a literal
// subscript. BigQuery returns input values, so the exact counterpart is a
// discrete quantile: the element of rank ceil(q·N), which is what DuckDB's
// quantile_disc computes. offset is the 0-based index into the n+1
// boundaries when the call is subscripted with a literal, nil otherwise.
func (e *emitter) approxQuantiles(c *call, offset *int64) string {
	if len(c.args) != 2 {
		e.invalid(c.it, "No matching signature for aggregate function APPROX_QUANTILES with %d argument(s)", len(c.args))
		return ""
	}
	n, ok := literalInt(c.args[1])
	if _, isFloat := literalFloat(c.args[1]); !ok && isFloat || !ok && isStringLiteral(c.args[1]) {
		// APPROX_QUANTILES(x, 0.75): a FLOAT64 (or STRING) where BigQuery
		// wants an INT64 count, which it rejects at analysis. The model's
		// error, not the engine's limit (issue 15).
		e.invalid(c.it, "No matching signature for aggregate function APPROX_QUANTILES for argument types: ANY, %s. Supported signature: APPROX_QUANTILES([DISTINCT] ANY, INT64)", map[bool]string{true: "FLOAT64", false: "STRING"}[isFloat])
		return ""
	}
	if a := c.args[1]; !ok && (len(a) == 1 && a[0].isGroup("[") || len(a) >= 1 && a[0].is("ARRAY")) {
		// APPROX_QUANTILES(x, [0.25, 0.75]): an ARRAY where BigQuery wants
		// the INT64 count, rejected at analysis.
		e.invalid(c.it, "No matching signature for aggregate function APPROX_QUANTILES for argument types: ANY, ARRAY. Supported signature: APPROX_QUANTILES([DISTINCT] ANY, INT64)")
		return ""
	}
	if !ok {
		e.unsupported(c.it, "APPROX_QUANTILES with a non-literal number of quantiles is not supported")
		return ""
	}
	if n <= 0 {
		e.invalid(c.it, "The second argument to APPROX_QUANTILES function must be positive")
		return ""
	}
	if n > 100000 {
		e.invalid(c.it, "The second argument to APPROX_QUANTILES function cannot be greater than 100000")
		return ""
	}
	if c.over != nil {
		e.invalid(c.it, "APPROX_QUANTILES does not support an OVER clause")
		return ""
	}
	if c.nulls == "RESPECT" {
		return e.approxQuantilesRespectNulls(c, n, offset)
	}
	x := c.arg(0)
	if c.distinct {
		x = "DISTINCT " + x
	}
	q := func(k int64) string { return strconv.FormatFloat(float64(k)/float64(n), 'g', -1, 64) }
	if offset != nil {
		return "quantile_disc(" + x + ", " + q(*offset) + ")"
	}
	qs := make([]string, 0, n+1)
	for k := int64(0); k <= n; k++ {
		qs = append(qs, q(k))
	}
	return "quantile_disc(" + x + ", [" + strings.Join(qs, ", ") + "])"
}

// approxTopCount renders APPROX_TOP_COUNT(x, n): the n most frequent values
// of x, NULL among them (BigQuery does not ignore NULLs), as an ARRAY of
// STRUCT<value, count INT64> by descending count; NULL over no rows. The
// counts are exact here, as they are in BigQuery below its sketch's
// capacity; BigQuery leaves the order of equal counts unspecified, and
// here they follow the values ascending, so that every run agrees.
func approxTopCount(c *call) string {
	e := c.e
	n, ok := literalInt(c.args[1])
	switch {
	case !ok:
		e.unsupported(c.it, "APPROX_TOP_COUNT with a non-literal number of elements is not supported")
		return ""
	case n <= 0:
		e.invalid(c.it, "The second argument to APPROX_TOP_COUNT must be positive")
		return ""
	case n > 100000:
		e.invalid(c.it, "The second argument to APPROX_TOP_COUNT cannot be greater than 100000")
		return ""
	case c.distinct || c.over != nil:
		e.unsupported(c.it, "APPROX_TOP_COUNT with DISTINCT or OVER is not supported")
		return ""
	}
	x := c.arg(0)
	// histogram() skips NULLs: their count is count(*) - count(x), and
	// max(x) FILTER (WHERE false) is a NULL of x's type for their value.
	// Entries are sorted as {-count, value}, then reshaped.
	// BigQuery counts equal INTERVALs written differently (a month, 30
	// days, 720 hours) as one value and returns one of them, which it does
	// not specify; histogram() counts them apart. Refused where x turns out
	// to be an INTERVAL, whether or not the bridge knew its type.
	return "(CASE WHEN typeof(max(" + x + ") FILTER (WHERE false)) = 'INTERVAL' THEN error('" + topCountOfIntervals + "') " +
		"WHEN count(*) = 0 THEN NULL ELSE list_transform(list_slice(list_sort(list_concat(" +
		"list_transform(map_entries(histogram(" + x + ")), bq_e -> {'neg': -CAST(bq_e.value AS BIGINT), 'value': bq_e.key}), " +
		"CASE WHEN count(*) > count(" + x + ") THEN [{'neg': count(" + x + ") - count(*), 'value': max(" + x + ") FILTER (WHERE false)}] ELSE [] END)), " +
		"1, " + strconv.FormatInt(n, 10) + "), bq_e -> {'value': bq_e.value, 'count': -bq_e.neg}) END)"
}

// approxQuantilesRespectNulls renders APPROX_QUANTILES(x, n RESPECT NULLS):
// NULLs take part and sort first, so the boundaries are the elements of
// rank ceil(k·N/n) (at least 1) of all N values, NULLs first: the rank
// quantile_disc uses, over a list that keeps the NULLs. NULL over no rows.
func (e *emitter) approxQuantilesRespectNulls(c *call, n int64, offset *int64) string {
	if c.distinct {
		e.unsupported(c.it, "APPROX_QUANTILES with DISTINCT and RESPECT NULLS is not supported")
		return ""
	}
	if offset == nil && n > 1000 {
		e.unsupported(c.it, "APPROX_QUANTILES with RESPECT NULLS and more than 1000 quantiles is not supported")
		return ""
	}
	list := "list_sort(list(" + c.arg(0) + "), 'ASC', 'NULLS FIRST')"
	at := func(k int64) string {
		// Integer arithmetic: ceil(k·N/n) exactly.
		return "list_extract(" + list + ", greatest(1, (" + strconv.FormatInt(k, 10) + " * len(" + list + ") + " +
			strconv.FormatInt(n-1, 10) + ") // " + strconv.FormatInt(n, 10) + "))"
	}
	if offset != nil {
		return "(CASE WHEN count(*) = 0 THEN NULL ELSE " + at(*offset) + " END)"
	}
	parts := make([]string, 0, n+1)
	for k := int64(0); k <= n; k++ {
		parts = append(parts, at(k))
	}
	return "(CASE WHEN count(*) = 0 THEN NULL ELSE [" + strings.Join(parts, ", ") + "] END)"
}

// subscript renders base[OFFSET(i)], [SAFE_OFFSET(i)], [ORDINAL(i)],
// [SAFE_ORDINAL(i)] and base[i].
func (e *emitter) subscript(it *item) string {
	s := it.sub
	kids := s.index.kids
	mode := "OFFSET"
	var idx []*item
	switch {
	case len(kids) == 2 && kids[1].isGroup("(") && (kids[0].is("OFFSET") || kids[0].is("SAFE_OFFSET") ||
		kids[0].is("ORDINAL") || kids[0].is("SAFE_ORDINAL")):
		mode = kids[0].upper()
		idx = kids[1].kids
	case len(kids) == 0:
		e.invalid(s.index, "Syntax error: Unexpected \"]\"")
		return ""
	default:
		idx = kids
	}
	if len(idx) == 0 {
		e.invalid(s.index, "Syntax error: Unexpected \")\"")
		return ""
	}
	safe := strings.HasPrefix(mode, "SAFE_")
	ordinal := strings.HasSuffix(mode, "ORDINAL")
	// APPROX_QUANTILES(x, n)[OFFSET(k)] becomes one discrete quantile.
	if len(s.base) == 2 && s.base[0].is("APPROX_QUANTILES") && s.base[1].isGroup("(") {
		if k, ok := literalInt(idx); ok {
			c := &call{e: e, it: s.base[0], name: "APPROX_QUANTILES", group: s.base[1]}
			e.parseArgs(c)
			e.checkCall(c, funcs["APPROX_QUANTILES"])
			if ordinal {
				k--
			}
			n, nok := literalInt(argAt(c.args, 1))
			if nok && (k < 0 || k > n) {
				if safe {
					return "CAST(NULL AS DOUBLE)"
				}
				e.invalid(s.index, "Array index %d is out of bounds", k)
				return ""
			}
			return e.approxQuantiles(c, &k)
		}
	}
	if len(idx) == 1 && idx[0].tok.Kind == String && !idx[0].synthetic() {
		e.unsupported(s.index, "JSON subscripts are not supported")
		return ""
	}
	base := e.text(s.base)
	i := e.text(idx)
	if ordinal {
		i = "(" + i + ") - 1"
	}
	if safe {
		return "bq_safe_offset(" + base + ", " + i + ")"
	}
	return "bq_offset(" + base + ", " + i + ")"
}

func argAt(args [][]*item, k int) []*item {
	if k < len(args) {
		return args[k]
	}
	return nil
}

// structFn renders STRUCT(expr [AS name], …) as struct_pack.
func structFn(c *call) string {
	if len(c.args) == 0 {
		c.e.unsupported(c.it, "empty STRUCT() is not supported")
		return ""
	}
	return c.e.structPack(c.args, nil)
}

// structFieldName returns the explicit (AS name) or inferred (path) name of
// a STRUCT field and the field's expression.
func (e *emitter) structFieldName(a []*item) (string, []*item) {
	n := len(a)
	switch {
	case n >= 3 && a[n-2].is("AS") && (a[n-1].tok.Kind == Ident || a[n-1].tok.Kind == QuotedIdent) && !a[n-1].synthetic():
		if a[n-1].tok.Kind == QuotedIdent {
			return e.identValue(a[n-1]), a[:n-2]
		}
		return a[n-1].tok.Text, a[:n-2]
	case n == 1 && a[0].tok.Kind == Ident && !a[0].synthetic() && !a[0].group && !bqReserved[a[0].upper()]:
		return a[0].tok.Text, a
	case n == 1 && a[0].tok.Kind == QuotedIdent && !a[0].synthetic():
		return e.identValue(a[0]), a
	case n >= 3 && a[n-2].isPunct(".") && a[n-1].tok.Kind == Ident && !a[n-1].synthetic():
		// t.field: restructure merges it later; the name is the last part.
		for k := 0; k < n; k++ {
			if k%2 == 1 && !a[k].isPunct(".") || k%2 == 0 && a[k].tok.Kind != Ident && a[k].tok.Kind != QuotedIdent {
				return "", a
			}
		}
		return a[n-1].tok.Text, a
	}
	return "", a
}

// structPack renders struct fields. Anonymous fields take the name at the
// same position in names (the first element of an array literal fixes the
// element type in BigQuery), else BigQuery's _field_N.
func (e *emitter) structPack(args [][]*item, names []string) string {
	parts := make([]string, len(args))
	for k, a := range args {
		name, expr := e.structFieldName(a)
		if name == "" && k < len(names) {
			name = names[k]
		}
		if name == "" {
			name = "_field_" + strconv.Itoa(k+1)
		}
		v := e.text(expr)
		if strings.Contains(v, "bq_") {
			// DuckDB 1.5 loses the field name of a macro call inside
			// struct_pack in a correlated subquery ("Need named argument
			// for struct pack"); a one-argument COALESCE shields it.
			v = "coalesce(" + v + ")"
		}
		parts[k] = quoteIdent(name) + " := " + v
	}
	return "struct_pack(" + strings.Join(parts, ", ") + ")"
}

// arrayLiteral renders the elements of [ … ]. When the elements are STRUCT
// constructors or tuples (structCtorArgs), later anonymous fields take the first element's names, as
// BigQuery coerces all elements to the first element's type (DuckDB would
// instead merge differently named fields).
func (e *emitter) arrayLiteral(kids []*item) string {
	elems := splitTop(kids)
	var names []string
	allStructs := len(elems) > 0
	for _, el := range elems {
		if structCtorArgs(el) == nil {
			allStructs = false
			break
		}
	}
	if !allStructs {
		e.numericLiterals(elems)
		return e.text(kids)
	}
	for _, a := range structCtorArgs(elems[0]) {
		name, _ := e.structFieldName(a)
		names = append(names, name)
	}
	out := make([]string, len(elems))
	for k, el := range elems {
		args := structCtorArgs(el)
		if len(args) == 0 {
			e.unsupported(el[0], "empty STRUCT() is not supported")
			return ""
		}
		out[k] = e.structPack(args, names)
	}
	return strings.Join(out, ", ")
}

// generateDateArray renders GENERATE_DATE_ARRAY(start, end[, INTERVAL n
// part]).
func generateDateArray(c *call) string {
	start, end := c.e.dateArg(c.args[0], "DATE"), c.e.dateArg(c.args[1], "DATE")
	step := "INTERVAL 1 DAY"
	if len(c.args) == 3 {
		a := c.args[2]
		if len(a) < 3 || !a[0].is("INTERVAL") {
			c.e.invalid(c.it, "GENERATE_DATE_ARRAY expects an INTERVAL step")
			return ""
		}
		n, part := c.e.intervalParts(a)
		switch part {
		case "DAY", "WEEK", "MONTH", "QUARTER", "YEAR":
		default:
			c.e.invalid(c.it, "GENERATE_DATE_ARRAY does not support the %s date part", part)
			return ""
		}
		step = n + " * " + intervalUnit(part)
	}
	return "bq_generate_date_array(" + start + ", " + end + ", " + step + ")"
}

// numericAgg translates SUM and AVG. Over NUMERIC and BIGNUMERIC (DuckDB
// DECIMAL(38, 9) and DECIMAL(38, 18)) BigQuery stays in the type: SUM fails
// past its range (DuckDB's 128-bit sum wraps), AVG is the exact quotient
// rounded half away from zero (DuckDB's avg of a DECIMAL is a DOUBLE). An
// analytic call (OVER) or an argument of unknown type keeps DuckDB's own.
func numericAgg(duck string) func(c *call) string {
	plain := fnSpec{min: 1, max: 1, agg: true, duck: duck}
	return func(c *call) string {
		t := baseType(c.e.exprType(c.args[0]))
		if t == "INTERVAL" && duck == "sum" {
			return sumOfIntervals(c)
		}
		if t != "NUMERIC" && t != "BIGNUMERIC" {
			return c.e.plainCall(c, plain)
		}
		// Analytic too: the window applies to each aggregate the rule
		// combines (DuckDB's avg OVER of a DECIMAL is a DOUBLE, its sum
		// OVER wraps past 128 bits).
		over, x := c.window(), c.distinctArg(0)
		kind := strings.ToLower(t)
		d := "sum(CAST(" + x + " AS DOUBLE))" + over
		if c.distinct {
			d = "sum(DISTINCT CAST(" + c.arg(0) + " AS DOUBLE))" + over
		}
		if duck == "sum" {
			return fmt.Sprintf("bq_%s_range(sum(%s)%s, %s, 'SUM')", kind, x, over, d)
		}
		return fmt.Sprintf("bq_avg_%s(sum(%s)%s, %s, count(%s)%s)", kind, x, over, d, x, over)
	}
}

// mixedCivil reports (as the model's error) a DATETIME and a TIMESTAMP
// among c's arguments, where their types are known: BigQuery has no common
// supertype for the two and rejects the call, DuckDB would coerce one to
// the other and return a value.
func mixedCivil(c *call) bool {
	seen := map[string]bool{}
	for _, a := range c.args {
		seen[c.e.exprType(a)] = true
	}
	if !seen["DATETIME"] || !seen["TIMESTAMP"] {
		return false
	}
	c.e.invalid(c.it, "No matching signature for function %s: arguments of type DATETIME and TIMESTAMP have no common supertype", c.name)
	return true
}

// safeOperator renders SAFE_ADD, SAFE_SUBTRACT, SAFE_MULTIPLY and
// SAFE_NEGATE, which are the operator but NULL where it overflows
// (BigQuery's mathematical functions reference). DuckDB's try() turns the
// overflow error into NULL, but it refuses an aggregate or window call
// inside it ("aggregates are not allowed inside the TRY expression"), and
// the operands are often aggregates (SAFE_MULTIPLY(SAFE_DIVIDE(SUM(x),
// COUNT(*)), 100)). So the operands are evaluated outside, as one list
// element, and try() applies the operator to them inside a lambda; each
// operand is written once. The operands are bracketed: SAFE_NEGATE(-x)
// must not become --x, a comment.
func safeOperator(c *call, op string) string {
	if len(c.args) == 1 {
		return "list_transform([(" + c.arg(0) + ")], bq_p -> try(" + op + "bq_p))[1]"
	}
	return "list_transform([struct_pack(bq_a := (" + c.arg(0) + "), bq_b := (" + c.arg(1) + "))], bq_p -> try(bq_p.bq_a " + op + " bq_p.bq_b))[1]"
}
