package bqsql

import (
	"strings"

	"github.com/sqlc-dev/zetajones/ast"
)

// Expression types in the statement model. A type is BigQuery's name
// (INT64, STRING, ARRAY<DATE>, STRUCT<a INT64, b STRING>); "" is unknown.
// While typing, literals carry a "lit:" mark (a literal coerces where a
// column would not: COALESCE(date_col, '2020-01-01') is a DATE) and NULL is
// "NULL"; the recorded types drop both.

// expr types n in scope s, records the type of every expression under it,
// and returns n's.
func (m *model) expr(n ast.Node, s *scope) string {
	if n == nil {
		return ""
	}
	t := m.exprType(n, s)
	stored := baseType(t)
	if stored == "NULL" {
		stored = ""
	}
	m.record(n, stored)
	return t
}

func (m *model) exprType(n ast.Node, s *scope) string {
	switch e := n.(type) {
	case *ast.IntLiteral:
		return "lit:INT64"
	case *ast.FloatLiteral:
		return "lit:FLOAT64"
	case *ast.StringLiteral:
		return "lit:STRING"
	case *ast.BytesLiteral:
		return "BYTES"
	case *ast.BooleanLiteral:
		return "BOOL"
	case *ast.NullLiteral:
		return "NULL"
	case *ast.NumericLiteral:
		return "NUMERIC"
	case *ast.BigNumericLiteral:
		return "BIGNUMERIC"
	case *ast.JSONLiteral:
		return "JSON"
	case *ast.DateOrTimeLiteral:
		return strings.TrimPrefix(e.TypeKind, "TYPE_")
	case *ast.IntervalExpr:
		m.expr(e.Value, s)
		return "INTERVAL"
	case *ast.PathExpression:
		t, _ := m.resolve(e, s)
		return t
	case *ast.DotIdentifier:
		t := baseType(m.expr(e.Expr, s))
		if e.Name == nil {
			return ""
		}
		ft, _ := fieldPath(t, []*ast.Identifier{e.Name})
		return ft
	case *ast.ArrayElement:
		t := baseType(m.expr(e.Array, s))
		m.expr(e.Position, s)
		if t == "JSON" {
			return "JSON"
		}
		return elementType(t)
	case *ast.UnaryExpression:
		t := m.expr(e.Operand, s)
		if e.Op == "NOT" {
			return "BOOL"
		}
		return t
	case *ast.BinaryExpression:
		l, r := m.expr(e.Left, s), m.expr(e.Right, s)
		if e.Op == "-" && baseType(l) == "DATE" && baseType(r) == "DATE" {
			m.noteDateDiff(e)
		}
		if _, lit := e.Right.(*ast.StringLiteral); e.Op == "LIKE" && !lit {
			m.noteLikePattern(e.Right, baseType(r))
		}
		return binaryType(e.Op, l, r)
	case *ast.BitwiseShiftExpression:
		for _, c := range e.Children() {
			m.expr(c, s)
		}
		return ""
	case *ast.AndExpr, *ast.OrExpr, *ast.BetweenExpression, *ast.InExpression, *ast.LikeExpression,
		*ast.QuantifiedComparisonExpression:
		m.children(n, s)
		return "BOOL"
	case *ast.CastExpression:
		m.expr(e.Expr, s)
		if e.Format != nil {
			m.children(e.Format, s)
		}
		return typeName(e.Type)
	case *ast.ExtractExpression:
		m.expr(e.RhsExpr, s)
		if e.TimeZone != nil {
			m.expr(e.TimeZone, s)
		}
		if p, ok := e.LhsExpr.(*ast.PathExpression); ok && len(p.Names) == 1 {
			switch part := strings.ToUpper(p.Names[0].Name); part {
			case "DATE", "TIME", "DATETIME":
				return part
			}
		}
		return "INT64"
	case *ast.FunctionCall:
		return m.call(e, s)
	case *ast.AnalyticFunctionCall:
		if e.WindowSpec != nil {
			m.children(e.WindowSpec, s)
		}
		return m.expr(e.Expr, s)
	case *ast.CaseValueExpression:
		// CASE v WHEN w THEN t … [ELSE e]
		return m.caseType(e.Arguments, 1, s)
	case *ast.CaseNoValueExpression:
		return m.caseType(e.Arguments, 0, s)
	case *ast.ExpressionSubquery:
		r := m.query(e.Query, s)
		switch strings.ToUpper(e.Modifier) {
		case "EXISTS":
			return "BOOL"
		case "ARRAY":
			if len(r.cols) == 1 {
				return arrayOf(r.cols[0].typ)
			}
			return ""
		}
		if len(r.cols) == 1 && r.complete {
			return baseType(r.cols[0].typ)
		}
		return ""
	case *ast.ArrayConstructor:
		elem := "NULL"
		for _, el := range e.Elements {
			elem = supertype(elem, m.expr(el, s))
		}
		if e.Type != nil {
			return typeName(e.Type)
		}
		if elem == "NULL" {
			return ""
		}
		return arrayOf(baseType(elem))
	case *ast.StructConstructorWithParens:
		var cols []column
		for _, f := range e.FieldExpressions {
			cols = append(cols, column{typ: baseType(m.expr(f, s))})
		}
		return structType(cols)
	case *ast.StructConstructorWithKeyword:
		var cols []column
		for _, f := range e.Fields {
			c := column{typ: baseType(m.expr(f.Expression, s))}
			if f.Alias != nil && f.Alias.Identifier != nil {
				c.name = f.Alias.Identifier.Name
			} else {
				c.name = implicitName(f.Expression)
			}
			cols = append(cols, c)
		}
		if e.StructType != nil {
			return typeName(e.StructType)
		}
		return structType(cols)
	case *ast.WithExpression:
		ws := &scope{parent: s}
		if e.Variables != nil {
			for _, v := range e.Variables.Columns {
				t := baseType(m.expr(v.Expr, ws))
				if v.Alias != nil && v.Alias.Identifier != nil {
					ws.vars = append(ws.vars, rangeVar{name: strings.ToLower(v.Alias.Identifier.Name), isValue: true, value: t})
				}
			}
		}
		return m.expr(e.Expr, ws)
	case *ast.NamedArgument:
		return m.expr(e.Value, s)
	case *ast.Lambda:
		return "" // its parameters' types are the array's elements: not followed
	}
	m.children(n, s)
	return ""
}

// children types every expression under n (in scope s) without a type for
// n itself.
func (m *model) children(n ast.Node, s *scope) {
	for _, c := range n.Children() {
		switch c := c.(type) {
		case *ast.Query:
			m.query(c, s)
		case *ast.Identifier, *ast.Location, *ast.Alias:
		default:
			m.expr(c, s)
		}
	}
}

// caseType types a CASE's arguments: after the first skip ones (the CASE
// value), WHEN and THEN alternate, and an odd last one is the ELSE.
func (m *model) caseType(args []ast.Node, skip int, s *scope) string {
	t := "NULL"
	for k, a := range args {
		at := m.expr(a, s)
		if k < skip {
			continue
		}
		if i := k - skip; i%2 == 1 || k == len(args)-1 && (len(args)-skip)%2 == 1 {
			t = supertype(t, at)
		}
	}
	if t == "NULL" {
		return ""
	}
	return t
}

// typeName is the BigQuery type a type node names.
func typeName(n ast.Node) string {
	switch t := n.(type) {
	case *ast.SimpleType:
		if t.Name == nil || len(t.Name.Names) != 1 {
			return ""
		}
		return canonicalType(t.Name.Names[0].Name)
	case *ast.ArrayType:
		return arrayOf(typeName(t.ElementType))
	case *ast.StructType:
		var cols []column
		for _, f := range t.Fields {
			c := column{typ: typeName(f.Type)}
			if f.Name != nil {
				c.name = f.Name.Name
			}
			cols = append(cols, c)
		}
		return structType(cols)
	}
	return ""
}

// canonicalType names a BigQuery type by its canonical name (INT is INT64,
// DECIMAL NUMERIC, …).
func canonicalType(name string) string {
	switch up := strings.ToUpper(name); up {
	case "INT64", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT":
		return "INT64"
	case "FLOAT64", "FLOAT":
		return "FLOAT64"
	case "NUMERIC", "DECIMAL":
		return "NUMERIC"
	case "BIGNUMERIC", "BIGDECIMAL":
		return "BIGNUMERIC"
	case "BOOL", "BOOLEAN":
		return "BOOL"
	case "STRING", "BYTES", "DATE", "DATETIME", "TIMESTAMP", "TIME", "INTERVAL", "JSON":
		return up
	}
	return ""
}

func arrayOf(elem string) string {
	if elem == "" || elem == "NULL" {
		return ""
	}
	return "ARRAY<" + baseType(elem) + ">"
}

// elementType is the element type of ARRAY<T>, or "".
func elementType(t string) string {
	t = baseType(t)
	if strings.HasPrefix(t, "ARRAY<") && strings.HasSuffix(t, ">") {
		return t[len("ARRAY<") : len(t)-1]
	}
	return ""
}

// structType writes STRUCT<name T, …> ("?" for an unknown field type, no
// name for an anonymous field).
func structType(cols []column) string {
	parts := make([]string, len(cols))
	for k, c := range cols {
		t := baseType(c.typ)
		if t == "" || t == "NULL" {
			t = "?"
		}
		if c.name != "" {
			t = c.name + " " + t
		}
		parts[k] = t
	}
	return "STRUCT<" + strings.Join(parts, ", ") + ">"
}

// typeFields reads STRUCT<…> back into its fields.
func typeFields(t string) ([]column, bool) {
	t = baseType(t)
	if !strings.HasPrefix(t, "STRUCT<") || !strings.HasSuffix(t, ">") {
		return nil, false
	}
	body := t[len("STRUCT<") : len(t)-1]
	var cols []column
	depth, start := 0, 0
	field := func(f string) {
		f = strings.TrimSpace(f)
		c := column{typ: f}
		if i := topLevelSpace(f); i >= 0 {
			c.name, c.typ = f[:i], strings.TrimSpace(f[i+1:])
		}
		if c.typ == "?" {
			c.typ = ""
		}
		cols = append(cols, c)
	}
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				field(body[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(body) != "" {
		field(body[start:])
	}
	return cols, true
}

func topLevelSpace(f string) int {
	depth := 0
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ' ':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// numericRank orders the numeric types by BigQuery's coercion: INT64 to
// NUMERIC to BIGNUMERIC to FLOAT64.
var numericRank = map[string]int{"INT64": 1, "NUMERIC": 2, "BIGNUMERIC": 3, "FLOAT64": 4}

// supertype is the common supertype of two types (conversion rules
// reference): NULL goes with anything, a literal coerces to the other
// side's type where BigQuery allows it, numbers widen, DATE widens to
// DATETIME; "" where there is none or one is unknown.
func supertype(a, b string) string {
	switch {
	case a == "NULL":
		return b
	case b == "NULL":
		return a
	case a == "" || b == "":
		return ""
	}
	la, lb := strings.HasPrefix(a, "lit:"), strings.HasPrefix(b, "lit:")
	ba, bb := baseType(a), baseType(b)
	if ba == bb {
		if la && lb {
			return a
		}
		return ba
	}
	if ra, rb := numericRank[ba], numericRank[bb]; ra > 0 && rb > 0 {
		switch {
		case la && !lb && ba == "FLOAT64" && (bb == "NUMERIC" || bb == "BIGNUMERIC"):
			return bb // a FLOAT64 literal coerces to NUMERIC
		case lb && !la && bb == "FLOAT64" && (ba == "NUMERIC" || ba == "BIGNUMERIC"):
			return ba
		case ra > rb:
			return ba
		}
		return bb
	}
	if (ba == "DATE" && bb == "DATETIME") || (ba == "DATETIME" && bb == "DATE") {
		return "DATETIME"
	}
	// A STRING literal coerces to a date, time or bytes column's type.
	switch {
	case la && ba == "STRING" && !lb && literalTarget[bb]:
		return bb
	case lb && bb == "STRING" && !la && literalTarget[ba]:
		return ba
	}
	return ""
}

var literalTarget = map[string]bool{"DATE": true, "DATETIME": true, "TIMESTAMP": true, "TIME": true, "BYTES": true}

// binaryType is the type of l op r (operators reference).
func binaryType(op, l, r string) string {
	switch op {
	case "+", "-", "*", "/":
	case "||":
		if bl := baseType(l); bl == "STRING" || bl == "BYTES" || strings.HasPrefix(bl, "ARRAY<") {
			return bl
		}
		return baseType(r)
	case "&", "|", "^":
		return baseType(supertype(l, r))
	default:
		return "BOOL" // comparisons, IS, LIKE, IN, DISTINCT FROM
	}
	bl, br := baseType(l), baseType(r)
	if bl == "NULL" {
		bl = br
	}
	if br == "NULL" {
		br = bl
	}
	if numericRank[bl] > 0 && numericRank[br] > 0 {
		t := baseType(supertype(l, r))
		if op == "/" && t == "INT64" {
			return "FLOAT64"
		}
		return t
	}
	switch {
	case bl == "DATE" && br == "INT64" && (op == "+" || op == "-"), bl == "INT64" && br == "DATE" && op == "+":
		return "DATE"
	case op == "-" && bl == br && (bl == "DATE" || bl == "DATETIME" || bl == "TIMESTAMP"):
		return "INTERVAL"
	case br == "INTERVAL" && (op == "+" || op == "-") && (bl == "DATE" || bl == "DATETIME"), bl == "INTERVAL" && br == "DATE" && op == "+":
		return "DATETIME"
	case br == "INTERVAL" && (op == "+" || op == "-") && bl == "TIMESTAMP", bl == "INTERVAL" && br == "TIMESTAMP" && op == "+":
		return "TIMESTAMP"
	case bl == "INTERVAL" && (br == "INTERVAL" || (br == "INT64" && (op == "*" || op == "/"))), br == "INTERVAL" && bl == "INT64" && op == "*":
		return "INTERVAL"
	}
	return ""
}

// call types a function call from its name and its arguments' types.
func (m *model) call(c *ast.FunctionCall, s *scope) string {
	args := make([]string, len(c.Args))
	for k, a := range c.Args {
		// A date part (DATE_TRUNC(x, MONTH), WEEK(MONDAY)) names no
		// column.
		part := false
		if p, ok := a.(*ast.PathExpression); ok && len(p.Names) == 1 {
			name := strings.ToUpper(p.Names[0].Name)
			_, day := weekdays[name]
			part = day || (k > 0 && datePartNames[name])
		}
		if part {
			m.noStars++
		}
		args[k] = m.expr(a, s)
		if part {
			m.noStars--
		}
	}
	for _, n := range []ast.Node{c.Where, c.Having, c.GroupBy, c.HavingClause, c.OrderBy, c.LimitOffset} {
		if n != nil && !isNilNode(n) {
			m.children(n, s)
		}
	}
	if c.Function == nil || len(c.Function.Names) == 0 {
		return ""
	}
	names := c.Function.Names
	if len(names) == 2 && strings.EqualFold(names[0].Name, "SAFE") {
		names = names[1:]
	}
	if len(names) != 1 {
		return ""
	}
	return functionType(strings.ToUpper(names[0].Name), args)
}

// isNilNode reports whether n is a typed nil pointer in an interface.
func isNilNode(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.WhereClause:
		return v == nil
	case *ast.HavingModifier:
		return v == nil
	case *ast.GroupBy:
		return v == nil
	case *ast.Having:
		return v == nil
	case *ast.OrderBy:
		return v == nil
	case *ast.LimitOffset:
		return v == nil
	}
	return false
}

// functionType is a function's result type for argument types args (each
// function's "Return type" in BigQuery's function reference): the
// argument-dependent ones here, the others from the signature catalogue.
func functionType(name string, args []string) string {
	arg := func(k int) string {
		if k < len(args) {
			return baseType(args[k])
		}
		return ""
	}
	a0 := arg(0)
	switch name {
	case "SUM":
		switch a0 {
		case "INT64", "NUMERIC", "BIGNUMERIC", "FLOAT64", "INTERVAL":
			return a0
		}
		return ""
	case "AVG":
		switch a0 {
		case "INT64":
			return "FLOAT64"
		case "NUMERIC", "BIGNUMERIC", "FLOAT64", "INTERVAL":
			return a0
		}
		return ""
	case "ROUND", "TRUNC", "CEIL", "CEILING", "FLOOR":
		switch a0 {
		case "INT64", "FLOAT64":
			return "FLOAT64"
		case "NUMERIC", "BIGNUMERIC":
			return a0
		}
		return ""
	case "SQRT", "LN", "LOG", "LOG10", "EXP", "POW", "POWER", "CBRT":
		t := a0
		if len(args) > 1 {
			t = baseType(supertype(args[0], args[1]))
		}
		switch t {
		case "NUMERIC", "BIGNUMERIC":
			return t
		case "":
			return ""
		}
		return "FLOAT64"
	case "SAFE_DIVIDE":
		return binaryType("/", arg(0), arg(1))
	case "SAFE_ADD":
		return binaryType("+", arg(0), arg(1))
	case "SAFE_SUBTRACT":
		return binaryType("-", arg(0), arg(1))
	case "SAFE_MULTIPLY":
		return binaryType("*", arg(0), arg(1))
	case "MOD", "DIV":
		return baseType(supertype(args0(args, 0), args0(args, 1)))
	case "IF":
		if len(args) == 3 {
			return baseType(supertype(args[1], args[2]))
		}
		return ""
	case "NULLIF":
		return a0
	case "LAG", "LEAD":
		if len(args) == 3 {
			return baseType(supertype(args[0], args[2]))
		}
		return a0
	case "ARRAY_AGG", "APPROX_QUANTILES", "REGEXP_EXTRACT_ALL":
		return arrayOf(a0)
	case "ARRAY_CONCAT", "ARRAY_REVERSE", "ARRAY_CONCAT_AGG":
		return a0
	case "GENERATE_ARRAY":
		return arrayOf(baseType(supertype(args0(args, 0), args0(args, 1))))
	case "GENERATE_DATE_ARRAY":
		return "ARRAY<DATE>"
	case "GENERATE_TIMESTAMP_ARRAY":
		return "ARRAY<TIMESTAMP>"
	case "SPLIT":
		if a0 == "BYTES" {
			return "ARRAY<BYTES>"
		}
		return "ARRAY<STRING>"
	case "DATE_ADD", "DATE_SUB", "DATE_TRUNC":
		switch a0 {
		case "DATETIME", "TIMESTAMP":
			return a0
		}
		return "DATE"
	case "LAST_DAY":
		return "DATE"
	case "TIMESTAMP_ADD", "TIMESTAMP_SUB", "TIMESTAMP_TRUNC", "DATETIME_ADD", "DATETIME_SUB", "DATETIME_TRUNC":
		// The result has the first argument's type, DATETIME or TIMESTAMP:
		// BigQuery runs TIMESTAMP_ADD on a DATETIME and gives a DATETIME
		// (DATETIME_TRUNC "truncates a DATETIME or TIMESTAMP value", datetime
		// functions reference), as the engine computes it.
		switch a0 {
		case "DATETIME", "TIMESTAMP":
			return a0
		case "":
			return ""
		}
	case "JSON_VALUE", "JSON_EXTRACT_SCALAR", "TO_JSON_STRING":
		return "STRING"
	case "JSON_QUERY", "JSON_EXTRACT":
		if a0 == "JSON" {
			return "JSON"
		}
		return "STRING"
	case "TO_JSON", "PARSE_JSON", "JSON_OBJECT", "JSON_ARRAY":
		return "JSON"
	case "PERCENTILE_CONT":
		if a0 == "NUMERIC" || a0 == "BIGNUMERIC" {
			return a0
		}
		return "FLOAT64"
	}
	sig, ok := signatures[name]
	if !ok {
		return ""
	}
	switch sig.result {
	case "T":
		return a0
	case "TEXT":
		if a0 == "BYTES" {
			return "BYTES"
		}
		return "STRING"
	case "SUPER":
		t := "NULL"
		for _, a := range args {
			t = supertype(t, a)
		}
		if t == "NULL" {
			return ""
		}
		return baseType(t)
	case "ARRAY", "STRUCT", "ELEM":
		return ""
	}
	return sig.result
}

func args0(args []string, k int) string {
	if k < len(args) {
		return args[k]
	}
	return ""
}
