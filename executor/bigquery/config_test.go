package bigquery

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadConfigExample(t *testing.T) {
	cfg, err := LoadConfig("testdata/config/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.Project != "my-billing-project" || cfg.Location != "US" || cfg.Credentials != CredentialsADC ||
		cfg.MaxBytesBilled != 50<<30 || cfg.Timeout != 5*time.Minute || cfg.MaxRows != 100000 || !cfg.UseCache() ||
		cfg.PricePerTiB != 6.25 || cfg.Retry != DefaultRetry {
		t.Errorf("config %+v", cfg)
	}
	if want := map[string]string{"app": "clinsql", "run": "validation-gpt-5"}; !reflect.DeepEqual(cfg.Labels, want) {
		t.Errorf("labels %v", cfg.Labels)
	}
	if len(cfg.Datasets) != 3 || cfg.Datasets["physionet-data.mimiciv_3_1_icu"] != "my-billing-project.mimiciv_3_1_icu" {
		t.Errorf("datasets %v", cfg.Datasets)
	}
}

// The defaults are the documented ones, and a file with a project only is
// enough.
func TestLoadConfigMinimal(t *testing.T) {
	cfg, err := LoadConfig("testdata/config/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Project = "my-billing-project"
	cfg.origin, want.origin = nil, nil
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got %+v\nwant %+v", cfg, want)
	}
	if want.MaxBytesBilled != 50<<30 || want.Timeout != 300*time.Second || want.PricePerTiB != 6.25 {
		t.Error("defaults changed without the docs")
	}
}

// Every problem is reported with its file, line and field.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		file string
		load bool // fails at load (parse), else at Validate
		want []string
	}{
		{"unknown-field.yaml", true, []string{"testdata/config/unknown-field.yaml", "line 2: field max_byte_billed not found"}},
		{"bad-size.yaml", true, []string{"testdata/config/bad-size.yaml", "line 2", `"fifty gigabytes" is not a byte size`}},
		{"bad-duration.yaml", true, []string{"testdata/config/bad-duration.yaml", "line 2", "time.Duration"}},
		{"not-a-map.yaml", true, []string{"testdata/config/not-a-map.yaml:1: want a mapping"}},
		{"bad-values.yaml", false, []string{
			`testdata/config/bad-values.yaml:1: project: "My_Project" is not a Google Cloud project id`,
			"testdata/config/bad-values.yaml:3: key_file: required when credentials is key_file",
			"testdata/config/bad-values.yaml:4: max_bytes_billed: 1MiB is below BigQuery's 10 MiB minimum",
			"testdata/config/bad-values.yaml:5: timeout: must be positive",
			"testdata/config/bad-values.yaml:6: max_rows: must be positive (got -5)",
			`testdata/config/bad-values.yaml:7: labels: key "Team"`,
			`testdata/config/bad-values.yaml:7: labels: value "Validation Run" of "run"`,
			`testdata/config/bad-values.yaml:10: datasets: "physionet-data.mimiciv_3_1_hosp" maps to "hosp_only": want "project.dataset"`,
			"testdata/config/bad-values.yaml:13: retry.attempts: must be at least 1",
			"testdata/config/bad-values.yaml:15: retry.max: 1s is below retry.initial 2s",
			"testdata/config/bad-values.yaml:16: price_per_tib: must be a non-negative number",
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			cfg, err := LoadConfig(filepath.Join("testdata/config", c.file))
			if !c.load {
				if err != nil {
					t.Fatal(err)
				}
				err = cfg.Validate()
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
	if _, err := LoadConfig("testdata/config/missing.yaml"); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

// Flags override the file; errors name the flag that set the field.
func TestFlags(t *testing.T) {
	parse := func(args ...string) (Config, error) {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			return Config{}, err
		}
		return f.Config()
	}
	cfg, err := parse("--bq-config", "testdata/config/example.yaml", "--bq-project", "other-project",
		"--bq-timeout", "90s", "--bq-max-bytes-billed", "20GiB", "--bq-max-rows", "50", "--bq-query-cache=false",
		"--bq-label", "run=r2", "--bq-label", "model=qwen3", "--bq-dataset", "physionet-data.mimiciv_3_1_hosp=x-project.hosp",
		"--bq-location", "EU", "--bq-price-per-tib", "5")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Project != "other-project" || cfg.Timeout != 90*time.Second || cfg.MaxBytesBilled != 20<<30 || cfg.MaxRows != 50 ||
		cfg.UseCache() || cfg.Location != "EU" || cfg.PricePerTiB != 5 {
		t.Errorf("config %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.Labels, map[string]string{"run": "r2", "model": "qwen3"}) {
		t.Errorf("labels %v", cfg.Labels)
	}
	if !reflect.DeepEqual(cfg.Datasets, map[string]string{"physionet-data.mimiciv_3_1_hosp": "x-project.hosp"}) {
		t.Errorf("datasets %v", cfg.Datasets)
	}
	// Unset flags leave the file's values.
	cfg, err = parse("--bq-config", "testdata/config/example.yaml")
	if err != nil || cfg.Timeout != 5*time.Minute || len(cfg.Datasets) != 3 {
		t.Errorf("file values lost: %v %+v", err, cfg)
	}

	_, err = parse("--bq-config", "testdata/config/minimal.yaml", "--bq-timeout", "-1s", "--bq-max-rows", "0")
	for _, w := range []string{"flag --bq-timeout: timeout: must be positive", "flag --bq-max-rows: max_rows: must be positive"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	if _, err = parse(); err == nil || !strings.Contains(err.Error(), "default: project: required") {
		t.Errorf("no project: %v", err)
	}
	if _, err = parse("--bq-max-bytes-billed", "lots"); err == nil {
		t.Error("bad byte size accepted")
	}
	if _, err = parse("--bq-label", "novalue"); err == nil {
		t.Error("label without = accepted")
	}
}

// A key file that cannot be read is reported without its path.
func TestKeyFileErrorsHidePath(t *testing.T) {
	dir := t.TempDir()
	secretPath := filepath.Join(dir, "very-secret-key-location.json")
	cfg := DefaultConfig()
	cfg.Project = "my-billing-project"
	cfg.Credentials = CredentialsKeyFile
	cfg.KeyFile = secretPath
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "key_file: cannot be opened: no such file or directory") {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(err.Error(), "very-secret-key-location") {
		t.Errorf("error names the key file: %v", err)
	}
	os.WriteFile(secretPath, []byte("{}"), 0o600)
	if err := cfg.Validate(); err != nil {
		t.Errorf("readable key file rejected: %v", err)
	}
	if d := cfg.Describe(); d["key_file"] != "(set)" {
		t.Errorf("Describe key_file = %v", d["key_file"])
	}
}

func TestParseByteSize(t *testing.T) {
	cases := []struct {
		in   string
		want ByteSize
		ok   bool
	}{
		{"50GiB", 50 << 30, true},
		{"50 GiB", 50 << 30, true},
		{"10GB", 10_000_000_000, true},
		{"1.5TiB", 3 << 39, true},
		{"1073741824", 1 << 30, true},
		{"512b", 512, true},
		{"10 mib", 10 << 20, true},
		{"", 0, false},
		{"GiB", 0, false},
		{"-5GiB", 0, false},
		{"5 parsecs", 0, false},
		{"99999999999TiB", 0, false},
	}
	for _, c := range cases {
		got, err := ParseByteSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	if s := ByteSize(50 << 30).String(); s != "50GiB" {
		t.Errorf("String %q", s)
	}
}
