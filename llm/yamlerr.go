package llm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// DecodeYAML decodes a configuration file's bytes into v, refusing unknown
// keys, and reports problems in the user's terms rather than yaml.v3's: each
// a [*ConfigError] naming the file, the line, the key's path and what is
// allowed there ("unknown key budget; allowed: budget_usd, endpoint, ..."
// instead of "field budget not found in type judge.Config").
func DecodeYAML(file string, data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF):
		return &ConfigError{File: file, Problem: "the file is empty"}
	}
	var root yaml.Node
	yaml.Unmarshal(data, &root) // for key paths; a syntax error leaves it empty
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			return &ConfigError{File: file, Line: line, Problem: "not valid YAML: " + m[2]}
		}
		return &ConfigError{File: file, Problem: msg}
	}
	errs := make([]error, 0, len(te.Errors))
	for _, e := range te.Errors {
		errs = append(errs, describeYAMLError(file, e, &root, reflect.TypeOf(v)))
	}
	return errors.Join(errs...)
}

var (
	lineRE     = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownRE  = regexp.MustCompile(`^field (\S+) not found in type (.+)$`)
	mismatchRE = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (.+)$")
)

func describeYAMLError(file, msg string, root *yaml.Node, t reflect.Type) error {
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return &ConfigError{File: file, Problem: msg}
	}
	line, _ := strconv.Atoi(m[1])
	ce := &ConfigError{File: file, Line: line, Problem: m[2]}
	if u := unknownRE.FindStringSubmatch(m[2]); u != nil {
		ce.Field = nodePath(root, line, u[1], true)
		ce.Problem = "unknown key " + strconv.Quote(u[1])
		if keys := yamlKeys(t, u[2]); len(keys) > 0 {
			ce.Problem += "; allowed here: " + strings.Join(keys, ", ")
		}
		return ce
	}
	if u := mismatchRE.FindStringSubmatch(m[2]); u != nil {
		ce.Field = nodePath(root, line, u[2], false)
		ce.Problem = fmt.Sprintf("%s is %s; want %s", strconv.Quote(u[2]), yamlKind(u[1]), goKind(u[3]))
	}
	return ce
}

// nodePath finds the dotted path ("endpoint.retry.budget", "models[1].name")
// of the key (isKey) or scalar value at line.
func nodePath(n *yaml.Node, line int, text string, isKey bool) string {
	var walk func(n *yaml.Node, path string) (string, bool)
	walk = func(n *yaml.Node, path string) (string, bool) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if p, ok := walk(c, path); ok {
					return p, true
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if k.Line == line && (isKey && k.Value == text || !isKey && v.Kind == yaml.ScalarNode && v.Line == line) {
					return p, true
				}
				if r, ok := walk(v, p); ok {
					return r, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				if !isKey && c.Kind == yaml.ScalarNode && c.Line == line {
					return p, true
				}
				if r, ok := walk(c, p); ok {
					return r, true
				}
			}
		}
		return "", false
	}
	p, _ := walk(n, "")
	return p
}

// yamlKeys lists the keys a struct type named name (as reflect spells it,
// "judge.Config") accepts, looking through t's fields, elements and
// pointers.
func yamlKeys(t reflect.Type, name string) []string {
	seen := map[reflect.Type]bool{}
	var find func(t reflect.Type) reflect.Type
	find = func(t reflect.Type) reflect.Type {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return nil
		}
		seen[t] = true
		if t.String() == name {
			return t
		}
		for i := range t.NumField() {
			if f := find(t.Field(i).Type); f != nil {
				return f
			}
		}
		return nil
	}
	st := find(t)
	if st == nil {
		return nil
	}
	var keys []string
	var collect func(t reflect.Type)
	collect = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			switch {
			case tag == "-":
			case strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct:
				collect(f.Type)
			case tag != "":
				keys = append(keys, tag)
			default:
				keys = append(keys, strings.ToLower(f.Name))
			}
		}
	}
	collect(st)
	slices.Sort(keys)
	return keys
}

func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "text"
	case "int":
		return "a whole number"
	case "float":
		return "a number"
	case "bool":
		return "true or false"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "empty"
	}
	return tag
}

var durationType = reflect.TypeOf(time.Duration(0)).String()

func goKind(goType string) string {
	switch {
	case goType == durationType:
		return "a duration such as 30s or 5m"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "text"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a mapping of keys to values"
	}
	return "a mapping of settings"
}
