package bqfake

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// apiModule is the module whose BigQuery v2 discovery document is the
// authority on what the real API accepts. It is the same module the client
// library is generated from, so the fake checks requests against the schema
// the server publishes, not against a hand-written list of fields.
const apiModule = "google.golang.org/api"

// discoveryDoc is the part of a Google API discovery document the fake uses.
type discoveryDoc struct {
	Parameters map[string]*param              `json:"parameters"`
	Resources  map[string]discoveryResource   `json:"resources"`
	Schemas    map[string]*schema             `json:"schemas"`
	methods    map[string]*discoveryMethodDef // "jobs.insert" -> method
}

type discoveryResource struct {
	Methods map[string]*discoveryMethodDef `json:"methods"`
}

type discoveryMethodDef struct {
	HTTPMethod string            `json:"httpMethod"`
	Path       string            `json:"path"`
	Parameters map[string]*param `json:"parameters"`
	Request    *schema           `json:"request"`
	Response   *schema           `json:"response"`
}

type param struct {
	Type     string   `json:"type"`
	Format   string   `json:"format"`
	Location string   `json:"location"`
	Required bool     `json:"required"`
	Repeated bool     `json:"repeated"`
	Enum     []string `json:"enum"`
}

type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Properties           map[string]*schema `json:"properties"`
	Items                *schema            `json:"items"`
	AdditionalProperties *schema            `json:"additionalProperties"`
	Enum                 []string           `json:"enum"`
}

var (
	discoveryOnce sync.Once
	discoveryVal  *discoveryDoc
	discoveryErr  error
)

// loadDiscovery reads bigquery/v2/bigquery-api.json from the module cache
// copy of the google.golang.org/api version this binary was built with.
func loadDiscovery() (*discoveryDoc, error) {
	discoveryOnce.Do(func() {
		discoveryVal, discoveryErr = readDiscovery()
	})
	return discoveryVal, discoveryErr
}

func readDiscovery() (*discoveryDoc, error) {
	path, err := discoveryPath()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bqfake: reading the BigQuery discovery document: %w", err)
	}
	var d discoveryDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("bqfake: %s: %w", path, err)
	}
	d.methods = make(map[string]*discoveryMethodDef)
	for rname, r := range d.Resources {
		for mname, m := range r.Methods {
			d.methods[rname+"."+mname] = m
		}
	}
	if d.Schemas["Job"] == nil || d.methods["jobs.insert"] == nil {
		return nil, fmt.Errorf("bqfake: %s is not the BigQuery v2 discovery document", path)
	}
	return &d, nil
}

func discoveryPath() (string, error) {
	const rel = "bigquery/v2/bigquery-api.json"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path != apiModule {
				continue
			}
			if m.Replace != nil && m.Replace.Version == "" { // directory replacement
				return filepath.Join(m.Replace.Path, rel), nil
			}
			version := m.Version
			if m.Replace != nil {
				version = m.Replace.Version
			}
			cache := os.Getenv("GOMODCACHE")
			if cache == "" {
				out, err := exec.Command("go", "env", "GOMODCACHE").Output()
				if err != nil {
					return "", fmt.Errorf("bqfake: locating the module cache (set GOMODCACHE): %w", err)
				}
				cache = strings.TrimSpace(string(out))
			}
			return filepath.Join(cache, escapeModulePath(apiModule)+"@"+version, rel), nil
		}
	}
	// Test binaries carry no dependency list: ask the go command, which
	// resolves the module as the build did (tests run inside the module).
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", apiModule).Output()
	if err != nil {
		return "", fmt.Errorf("bqfake: locating %s with \"go list -m\": %w", apiModule, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("bqfake: %s is not downloaded (run go mod download)", apiModule)
	}
	return filepath.Join(dir, rel), nil
}

// escapeModulePath applies the module cache's case encoding (upper-case
// letters become '!' plus the lower-case letter).
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// validate checks a decoded JSON value against a schema and returns every
// problem found, each with its JSON path. Unknown fields are problems: the
// real API rejects them ("Invalid JSON payload received. Unknown name").
func (d *discoveryDoc) validate(s *schema, v any, path string) []string {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		ref := d.Schemas[s.Ref]
		if ref == nil {
			return []string{fmt.Sprintf("%s: unknown schema %q", path, s.Ref)}
		}
		return d.validate(ref, v, path)
	}
	if v == nil {
		return nil // JSON null is accepted for every field
	}
	switch s.Type {
	case "any", "":
		return nil
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %s", path, jsonKind(v))}
		}
		var probs []string
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub := path + "." + k
			if p, ok := s.Properties[k]; ok {
				probs = append(probs, d.validate(p, m[k], sub)...)
				continue
			}
			if s.AdditionalProperties != nil {
				probs = append(probs, d.validate(s.AdditionalProperties, m[k], sub)...)
				continue
			}
			probs = append(probs, fmt.Sprintf("%s: unknown field", sub))
		}
		return probs
	case "array":
		a, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %s", path, jsonKind(v))}
		}
		var probs []string
		for i, e := range a {
			probs = append(probs, d.validate(s.Items, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return probs
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: want a boolean, got %s", path, jsonKind(v))}
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return []string{fmt.Sprintf("%s: want a number, got %s", path, jsonKind(v))}
		}
		if s.Type == "integer" {
			if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
				return []string{fmt.Sprintf("%s: %s is not an integer", path, n)}
			}
		}
	case "string":
		var str string
		switch x := v.(type) {
		case string:
			str = x
		case json.Number:
			// Proto JSON accepts numbers for 64-bit integer fields too.
			if s.Format != "int64" && s.Format != "uint64" {
				return []string{fmt.Sprintf("%s: want a string, got a number", path)}
			}
			str = x.String()
		default:
			return []string{fmt.Sprintf("%s: want a string, got %s", path, jsonKind(v))}
		}
		switch s.Format {
		case "int64":
			if _, err := strconv.ParseInt(str, 10, 64); err != nil {
				return []string{fmt.Sprintf("%s: %q is not an int64", path, str)}
			}
		case "uint64":
			if _, err := strconv.ParseUint(str, 10, 64); err != nil {
				return []string{fmt.Sprintf("%s: %q is not a uint64", path, str)}
			}
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			return []string{fmt.Sprintf("%s: %q is not one of %v", path, str, s.Enum)}
		}
	default:
		return []string{fmt.Sprintf("%s: schema type %q not understood by the fake", path, s.Type)}
	}
	return nil
}

// validateParams checks URL query parameters against a method's parameters
// and the API's global parameters.
func (d *discoveryDoc) validateParams(m *discoveryMethodDef, q map[string][]string) []string {
	var probs []string
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := m.Parameters[k]
		if p == nil || p.Location != "query" {
			p = d.Parameters[k]
		}
		if p == nil {
			probs = append(probs, fmt.Sprintf("query parameter %q: unknown name", k))
			continue
		}
		vals := q[k]
		if len(vals) > 1 && !p.Repeated {
			probs = append(probs, fmt.Sprintf("query parameter %q: given %d times", k, len(vals)))
		}
		for _, v := range vals {
			switch p.Type {
			case "boolean":
				if v != "true" && v != "false" {
					probs = append(probs, fmt.Sprintf("query parameter %q: %q is not a boolean", k, v))
				}
			case "integer":
				bits := 32
				if p.Format == "int64" || p.Format == "uint64" {
					bits = 64
				}
				var err error
				if strings.HasPrefix(p.Format, "uint") {
					_, err = strconv.ParseUint(v, 10, bits)
				} else {
					_, err = strconv.ParseInt(v, 10, bits)
				}
				if err != nil {
					probs = append(probs, fmt.Sprintf("query parameter %q: %q is not a %s", k, v, p.Format))
				}
			case "string":
				if p.Format == "uint64" || p.Format == "int64" {
					if _, err := strconv.ParseInt(v, 10, 64); err != nil {
						probs = append(probs, fmt.Sprintf("query parameter %q: %q is not an integer", k, v))
					}
				}
				if len(p.Enum) > 0 && !contains(p.Enum, v) {
					probs = append(probs, fmt.Sprintf("query parameter %q: %q is not one of %v", k, v, p.Enum))
				}
			}
		}
	}
	return probs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
