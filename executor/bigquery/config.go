package bigquery

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/clinsql/clinsql/executor"
)

// Defaults. MaxBytesBilled and Timeout are the ClinSQL reference's values
// (50 GiB, 300 s), so that a query the published runs accepted is accepted
// here and one they refused is refused here: a lower cap would charge valid
// queries to the model. 50 GiB bills at most about $0.31 at the on-demand
// list price.
const (
	DefaultLocation       = "US" // physionet-data's MIMIC-IV datasets live in the US multi-region
	DefaultMaxBytesBilled = 50 << 30
	DefaultTimeout        = 300 * time.Second
	DefaultMaxRows        = 100_000
	// DefaultPricePerTiB is BigQuery's on-demand list price for query
	// processing in the US multi-region, in USD per TiB billed.
	DefaultPricePerTiB = 6.25
)

// Credential sources.
const (
	CredentialsADC     = "adc"      // Application Default Credentials
	CredentialsKeyFile = "key_file" // a service-account JSON key file
	CredentialsNone    = "none"     // no authentication (emulators, tests)
)

// Config configures the engine. Load it with [LoadConfig] or start from
// [DefaultConfig]; [Config.Validate] checks it and names the file and field
// of every problem.
type Config struct {
	// Project is the billing project: jobs run in it and it pays for them.
	// Required. The MIMIC-IV data stays in physionet-data (or wherever
	// Datasets points).
	Project string `yaml:"project"`
	// Location of the jobs; must match the data's location. Default "US".
	Location string `yaml:"location"`
	// Credentials: "adc" (default), "key_file" or "none".
	Credentials string `yaml:"credentials"`
	// KeyFile is a service-account JSON key (credentials: key_file). Its
	// path and content are never written to any output or log.
	KeyFile string `yaml:"key_file"`
	// Datasets maps a dataset as the SQL names it ("physionet-data.mimiciv_3_1_hosp")
	// to the dataset queried instead ("my-project.mimic_hosp"). Unmapped
	// names are queried as written.
	Datasets map[string]string `yaml:"datasets"`
	// MaxBytesBilled caps each job (maximumBytesBilled) and is checked
	// against the dry-run estimate first. Accepts "50GiB", "10 GB" or bytes.
	MaxBytesBilled ByteSize `yaml:"max_bytes_billed"`
	// Timeout per query: the job's wall time from insert to last row read;
	// also sent as the job's jobTimeoutMs.
	Timeout time.Duration `yaml:"timeout"`
	// MaxRows kept per result; more are counted, not kept.
	MaxRows int `yaml:"max_rows"`
	// MaxResultBytes bounds the bytes of the rows kept per result
	// (executor.Limits.MaxResultBytes); reading stops at the row that would
	// cross it.
	MaxResultBytes ByteSize `yaml:"max_result_bytes"`
	// QueryCache lets BigQuery answer from its 24-hour result cache (free).
	QueryCache *bool `yaml:"query_cache"`
	// Labels are set on every job (keys and values: lower-case letters,
	// digits, '_' and '-', at most 63 characters).
	Labels map[string]string `yaml:"labels"`
	// Retry bounds the retries of infrastructure failures.
	Retry RetryConfig `yaml:"retry"`
	// PricePerTiB prices cost estimates (USD per TiB billed).
	PricePerTiB float64 `yaml:"price_per_tib"`
	// Endpoint overrides the API endpoint (a BigQuery emulator, tests).
	Endpoint string `yaml:"endpoint"`

	// origin names where each field was last set, for error messages.
	origin map[string]string
}

// RetryConfig bounds retries of infrastructure failures (rate limits, quota,
// backend errors, network errors). Waits grow exponentially from Initial to
// Max with random jitter; retrying stops after Attempts tries or when the
// waits would exceed Budget.
type RetryConfig struct {
	Attempts int           `yaml:"attempts"`
	Initial  time.Duration `yaml:"initial"`
	Max      time.Duration `yaml:"max"`
	Budget   time.Duration `yaml:"budget"`
}

// DefaultRetry is the retry policy used when the configuration sets none.
var DefaultRetry = RetryConfig{Attempts: 6, Initial: time.Second, Max: 32 * time.Second, Budget: 3 * time.Minute}

// DefaultConfig returns a configuration with every default set and no
// billing project.
func DefaultConfig() Config {
	cache := true
	return Config{
		Location:       DefaultLocation,
		Credentials:    CredentialsADC,
		MaxBytesBilled: DefaultMaxBytesBilled,
		Timeout:        DefaultTimeout,
		MaxRows:        DefaultMaxRows,
		MaxResultBytes: ByteSize(executor.DefaultMaxResultBytes),
		QueryCache:     &cache,
		Labels:         map[string]string{"app": "clinsql"},
		Retry:          DefaultRetry,
		PricePerTiB:    DefaultPricePerTiB,
	}
}

// ConfigError is a problem with one field of the configuration.
type ConfigError struct {
	Source string // "bq.yaml:7" or "flag --bq-timeout"
	Field  string // YAML name, e.g. "max_bytes_billed"
	Msg    string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Source, e.Field, e.Msg)
}

// LoadConfig reads a YAML configuration file over the defaults. Unknown
// fields are errors.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("bigquery config: %w", err)
	}
	if err := cfg.decodeYAML(path, b); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func (c *Config) decodeYAML(path string, b []byte) error {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(root.Content) == 0 {
		return nil // empty file: defaults
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of settings", path, doc.Line)
	}
	// Maps replace rather than merge with the defaults, so that a file's
	// labels are exactly its labels.
	for i := 0; i+1 < len(doc.Content); i += 2 {
		switch doc.Content[i].Value {
		case "labels":
			c.Labels = nil
		case "datasets":
			c.Datasets = nil
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: %s", path, strings.Join(te.Errors, "; "))
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if c.origin == nil {
		c.origin = make(map[string]string)
	}
	for _, f := range configFields {
		if line := keyLine(doc, f); line > 0 {
			c.origin[f] = fmt.Sprintf("%s:%d", path, line)
		}
	}
	return nil
}

// keyLine returns the line of a top-level or dotted ("retry.budget") key.
func keyLine(n *yaml.Node, field string) int {
	head, rest, nested := strings.Cut(field, ".")
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != head {
			continue
		}
		if nested && n.Content[i+1].Kind == yaml.MappingNode {
			if l := keyLine(n.Content[i+1], rest); l > 0 {
				return l
			}
		}
		return n.Content[i].Line
	}
	return 0
}

var configFields = []string{
	"project", "location", "credentials", "key_file", "datasets", "max_bytes_billed",
	"timeout", "max_rows", "query_cache", "labels", "retry.attempts", "retry.initial",
	"retry.max", "retry.budget", "price_per_tib", "endpoint",
}

func (c *Config) source(field string) string {
	if s := c.origin[field]; s != "" {
		return s
	}
	return "default"
}

func (c *Config) errf(field, format string, a ...any) *ConfigError {
	return &ConfigError{Source: c.source(field), Field: field, Msg: fmt.Sprintf(format, a...)}
}

var (
	// Project ids: 6-30 characters, optionally domain-scoped ("example.com:proj").
	projectPattern = regexp.MustCompile(`^([a-z0-9][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	datasetPattern = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	labelKey       = regexp.MustCompile(`^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$`)
	labelValue     = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$`)
)

// Validate checks the configuration. The error lists every problem, each
// naming its source (file and line, or flag) and field.
func (c *Config) Validate() error {
	var errs []error
	add := func(e *ConfigError) { errs = append(errs, e) }
	if c.Project == "" {
		add(c.errf("project", "required: the Google Cloud project that runs and pays for the queries"))
	} else if !projectPattern.MatchString(c.Project) {
		add(c.errf("project", "%q is not a Google Cloud project id", c.Project))
	}
	if c.Location == "" {
		add(c.errf("location", "required (physionet-data is in %q)", DefaultLocation))
	}
	switch c.Credentials {
	case CredentialsADC, CredentialsNone:
		if c.KeyFile != "" {
			add(c.errf("key_file", "set, but credentials is %q; use credentials: key_file", c.Credentials))
		}
	case CredentialsKeyFile:
		if c.KeyFile == "" {
			// Point at the line that asked for a key file.
			add(&ConfigError{Source: c.source("credentials"), Field: "key_file", Msg: "required when credentials is key_file"})
		} else if err := checkKeyFile(c.KeyFile); err != nil {
			add(c.errf("key_file", "%v", err))
		}
	default:
		add(c.errf("credentials", "%q is not one of adc, key_file, none", c.Credentials))
	}
	for _, from := range slices.Sorted(maps.Keys(c.Datasets)) {
		to := c.Datasets[from]
		if err := checkDatasetName(from); err != nil {
			add(c.errf("datasets", "%q: %v", from, err))
		}
		if err := checkDatasetName(to); err != nil {
			add(c.errf("datasets", "%q maps to %q: %v", from, to, err))
		}
	}
	if c.MaxBytesBilled <= 0 {
		add(c.errf("max_bytes_billed", "must be positive (got %d); there is no unlimited setting", c.MaxBytesBilled))
	} else if c.MaxBytesBilled < 10<<20 {
		add(c.errf("max_bytes_billed", "%s is below BigQuery's 10 MiB minimum charge: every query would fail", c.MaxBytesBilled))
	}
	if c.Timeout <= 0 {
		add(c.errf("timeout", "must be positive (got %s)", c.Timeout))
	} else if c.Timeout%time.Millisecond != 0 {
		add(c.errf("timeout", "%s: BigQuery takes whole milliseconds", c.Timeout))
	}
	if c.MaxRows <= 0 {
		add(c.errf("max_rows", "must be positive (got %d)", c.MaxRows))
	}
	if c.MaxResultBytes <= 0 {
		add(c.errf("max_result_bytes", "must be positive (got %d); there is no unlimited setting", c.MaxResultBytes))
	}
	if c.QueryCache == nil {
		add(c.errf("query_cache", "must be true or false"))
	}
	if len(c.Labels) > 64 {
		add(c.errf("labels", "at most 64 labels (got %d)", len(c.Labels)))
	}
	for _, k := range slices.Sorted(maps.Keys(c.Labels)) {
		if !labelKey.MatchString(k) {
			add(c.errf("labels", "key %q: lower-case letters, digits, '_' and '-', starting with a letter, at most 63", k))
		}
		if !labelValue.MatchString(c.Labels[k]) {
			add(c.errf("labels", "value %q of %q: lower-case letters, digits, '_' and '-', at most 63", c.Labels[k], k))
		}
	}
	r := c.Retry
	if r.Attempts < 1 {
		add(c.errf("retry.attempts", "must be at least 1 (got %d)", r.Attempts))
	}
	if r.Initial <= 0 {
		add(c.errf("retry.initial", "must be positive (got %s)", r.Initial))
	}
	if r.Max < r.Initial {
		add(c.errf("retry.max", "%s is below retry.initial %s", r.Max, r.Initial))
	}
	if r.Budget < 0 {
		add(c.errf("retry.budget", "must not be negative (got %s)", r.Budget))
	}
	if c.PricePerTiB < 0 || math.IsNaN(c.PricePerTiB) || math.IsInf(c.PricePerTiB, 0) {
		add(c.errf("price_per_tib", "must be a non-negative number of USD (got %v)", c.PricePerTiB))
	}
	if c.Endpoint != "" && !strings.HasPrefix(c.Endpoint, "http://") && !strings.HasPrefix(c.Endpoint, "https://") {
		add(c.errf("endpoint", "%q is not an http(s) URL", c.Endpoint))
	}
	return errors.Join(errs...)
}

// checkKeyFile reports whether the key file can be read, without naming it:
// the path is kept out of every message.
func checkKeyFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("cannot be opened: %v", pe.Err)
		}
		return errors.New("cannot be opened")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return errors.New("is not a regular file")
	}
	return nil
}

func checkDatasetName(s string) error {
	i := strings.LastIndex(s, ".")
	if i < 0 {
		return errors.New(`want "project.dataset"`)
	}
	if !projectPattern.MatchString(s[:i]) {
		return fmt.Errorf("%q is not a project id", s[:i])
	}
	if !datasetPattern.MatchString(s[i+1:]) || len(s[i+1:]) > 1024 {
		return fmt.Errorf("%q is not a dataset name", s[i+1:])
	}
	return nil
}

// UseCache reports whether the query cache is on.
func (c Config) UseCache() bool { return c.QueryCache == nil || *c.QueryCache }

// Describe returns the configuration as safe to record in run outputs: the
// key file is reported as set or not, never by path.
func (c Config) Describe() map[string]any {
	keyFile := ""
	if c.KeyFile != "" {
		keyFile = "(set)"
	}
	return map[string]any{
		"engine":           "bigquery",
		"project":          c.Project,
		"location":         c.Location,
		"credentials":      c.Credentials,
		"key_file":         keyFile,
		"datasets":         c.Datasets,
		"max_bytes_billed": int64(c.MaxBytesBilled),
		"timeout_ms":       c.Timeout.Milliseconds(),
		"max_rows":         c.MaxRows,
		"query_cache":      c.UseCache(),
		"labels":           c.Labels,
		"price_per_tib":    c.PricePerTiB,
	}
}

// ByteSize is a number of bytes written as an integer or with a unit: B, KB,
// MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024).
type ByteSize int64

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseByteSize parses "50GiB", "10 GB", "1073741824".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	mult, ok := byteUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a byte size (e.g. 50GiB, 10GB, 1073741824)", s)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/int64(mult) {
			return 0, fmt.Errorf("%q is not a byte size", s)
		}
		return ByteSize(n * int64(mult)), nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a byte size", s)
	}
	return ByteSize(math.Round(f * mult)), nil
}

// UnmarshalYAML accepts an integer or a string with a unit.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a byte size such as 50GiB", n.Line)
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*b = v
	return nil
}

// String formats with a binary unit when exact.
func (b ByteSize) String() string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b != 0 && int64(b)%u.n == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

// Set implements flag.Value.
func (b *ByteSize) Set(s string) error {
	v, err := ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Flags are the command-line overrides of a configuration file. Register
// them with [AddFlags]; after parsing, [Flags.Config] loads the file named by
// --bq-config (if any) and applies the flags that were given.
type Flags struct {
	fs          *flag.FlagSet
	ConfigPath  string
	project     string
	location    string
	credentials string
	keyFile     string
	maxBytes    ByteSize
	timeout     time.Duration
	maxRows     int
	cache       bool
	labels      kvList
	datasets    kvList
	price       float64
	endpoint    string
}

// AddFlags registers the BigQuery flags on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	fs.StringVar(&f.ConfigPath, "bq-config", "", "BigQuery engine configuration `file` (YAML)")
	fs.StringVar(&f.project, "bq-project", "", "billing `project` that runs and pays for the queries")
	fs.StringVar(&f.location, "bq-location", "", "job `location` (default US)")
	fs.StringVar(&f.credentials, "bq-credentials", "", "credentials: adc, key_file or none (default adc)")
	fs.StringVar(&f.keyFile, "bq-key-file", "", "service-account JSON key `file` (implies --bq-credentials key_file)")
	fs.Var(&f.maxBytes, "bq-max-bytes-billed", "per-query cap on bytes billed, e.g. 50GiB (default 50GiB)")
	fs.DurationVar(&f.timeout, "bq-timeout", 0, "per-query timeout (default 5m0s)")
	fs.IntVar(&f.maxRows, "bq-max-rows", 0, "rows kept per result (default 100000)")
	fs.BoolVar(&f.cache, "bq-query-cache", true, "use BigQuery's query cache")
	fs.Var(&f.labels, "bq-label", "job label `key=value` (repeatable; replaces the file's labels)")
	fs.Var(&f.datasets, "bq-dataset", "dataset mapping `from=to`, e.g. physionet-data.mimiciv_3_1_hosp=my-proj.hosp (repeatable; replaces the file's mapping)")
	fs.Float64Var(&f.price, "bq-price-per-tib", 0, "USD per TiB billed for cost estimates (default 6.25)")
	fs.StringVar(&f.endpoint, "bq-endpoint", "", "API endpoint `URL` (emulators)")
	return f
}

// Config returns the configuration from the file and the flags, validated.
func (f *Flags) Config() (Config, error) {
	cfg := DefaultConfig()
	if f.ConfigPath != "" {
		var err error
		if cfg, err = LoadConfig(f.ConfigPath); err != nil {
			return cfg, err
		}
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if cfg.origin == nil {
		cfg.origin = map[string]string{}
	}
	apply := func(name, field string, fn func()) {
		if set[name] {
			fn()
			cfg.origin[field] = "flag --" + name
		}
	}
	apply("bq-project", "project", func() { cfg.Project = f.project })
	apply("bq-location", "location", func() { cfg.Location = f.location })
	apply("bq-credentials", "credentials", func() { cfg.Credentials = f.credentials })
	apply("bq-key-file", "key_file", func() {
		cfg.KeyFile = f.keyFile
		if !set["bq-credentials"] {
			cfg.Credentials = CredentialsKeyFile
			cfg.origin["credentials"] = "flag --bq-key-file"
		}
	})
	apply("bq-max-bytes-billed", "max_bytes_billed", func() { cfg.MaxBytesBilled = f.maxBytes })
	apply("bq-timeout", "timeout", func() { cfg.Timeout = f.timeout })
	apply("bq-max-rows", "max_rows", func() { cfg.MaxRows = f.maxRows })
	apply("bq-query-cache", "query_cache", func() { v := f.cache; cfg.QueryCache = &v })
	apply("bq-label", "labels", func() { cfg.Labels = f.labels.m })
	apply("bq-dataset", "datasets", func() { cfg.Datasets = f.datasets.m })
	apply("bq-price-per-tib", "price_per_tib", func() { cfg.PricePerTiB = f.price })
	apply("bq-endpoint", "endpoint", func() { cfg.Endpoint = f.endpoint })
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// kvList is a repeatable key=value flag.
type kvList struct{ m map[string]string }

func (l *kvList) String() string {
	if l == nil {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l.m)) {
		parts = append(parts, k+"="+l.m[k])
	}
	return strings.Join(parts, ",")
}

func (l *kvList) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want key=value", v)
	}
	if l.m == nil {
		l.m = map[string]string{}
	}
	l.m[k] = val
	return nil
}
