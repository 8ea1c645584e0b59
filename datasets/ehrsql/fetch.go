package ehrsql

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/clinsql/clinsql/datasets"
)

// Commit is the shared task's repository commit fetched: glee4810/ehrsql-2024
// "version 1.1.1" (2025-07-04), the version every score here is checked
// against (labels changed between versions: scores compare only within
// one).
const Commit = "46597893d9ffc6b9e67785b9c6dcbb06f1b62568"

// BaseURL is where the repository's files at Commit are served one by one.
const BaseURL = "https://raw.githubusercontent.com/glee4810/ehrsql-2024/" + Commit + "/"

// File is one published file: its path in the repository, its place in the
// data folder (the layout --data-dir reads), its SHA-256 when it is known
// ahead ("" when not: the file is checked by what it holds instead), and
// whether it may be absent upstream.
type File struct {
	Path, Dest, SHA256 string
	MaxBytes           int64
	Optional           bool
}

// Files are the shared task's published files at Commit. The train and
// valid splits, tables.json and the licence are pinned by their SHA-256
// (the bytes of Commit, as ../shared/ehrsql-2024 holds them). The public
// test split and mimic_iv.sqlite are checked by content: every split must
// load (ids the same in every file, annotations agreeing with the labels),
// and the database must reproduce the published answers (FetchOptions.Verify).
var Files = []File{
	{Path: "LICENSE", Dest: "LICENSE", SHA256: "95df2e9564862e51d69683a899b6dcc8218d577057bdf67322880769ff85f29e", MaxBytes: 1 << 20},
	{Path: "data/mimic_iv/tables.json", Dest: "tables.json", SHA256: "8f6db5cd6a19ab1b343a9e46d073057877b841abae4f53a1e0c9b9d1021c826d", MaxBytes: 8 << 20},
	{Path: "data/mimic_iv/train/data.json", Dest: "train/data.json", SHA256: "5831de7229fbbd3af0f22685a6c7338d2656b3a975b060ad3b5a22d0a7cc5f19", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/train/label.json", Dest: "train/label.json", SHA256: "bbfc13a6291d8677eafe4c6b25f186708f5150abf8e19788fa567ec997855ca3", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/train/answer.json", Dest: "train/answer.json", SHA256: "87f5f2d1485dbf7e2f4a0ffbf1f8179516f252def642d2db9c54ba2ea0df580a", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/valid/data.json", Dest: "valid/data.json", SHA256: "106fe2d679dc66daa3b2e0797fef7badd1f9264db4e64b40677ebceda736acdc", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/valid/label.json", Dest: "valid/label.json", SHA256: "9addafb996119b0e4a1b05928a6d4d42f33c073fa6d72edbdf8273faa40a6db0", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/valid/answer.json", Dest: "valid/answer.json", SHA256: "d8339672bb752bde0bbda4ed4359db0fb64fb8d9e81cb7a782866b7cca17484b", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/valid/annotated.json", Dest: "valid/annotated.json", SHA256: "1696733652f25718b95d81cba94f5a59149e1246470a92e9e71f103262faafb0", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/test/data.json", Dest: "test/data.json", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/test/label.json", Dest: "test/label.json", MaxBytes: MaxFileBytes},
	{Path: "data/mimic_iv/test/answer.json", Dest: "test/answer.json", MaxBytes: MaxFileBytes, Optional: true},
	{Path: "data/mimic_iv/test/annotated.json", Dest: "test/annotated.json", MaxBytes: MaxFileBytes, Optional: true},
	{Path: "data/mimic_iv/mimic_iv.sqlite", Dest: DatabaseFile, MaxBytes: 512 << 20},
}

// DatabaseFile is the database's place in the data folder.
const DatabaseFile = "mimic_iv/mimic_iv.sqlite"

// SumsFile lists, in sha256sum's format, the SHA-256 of every file the
// fetch wrote: what a score made from the folder traces to.
const SumsFile = "SHA256SUMS"

// FetchOptions configure Fetch.
type FetchOptions struct {
	// BaseURL replaces BaseURL (a mirror, another commit); Files
	// replaces Files.
	BaseURL string
	Files   []File
	Client  *http.Client
	Retries int
	Log     io.Writer
	// Verify, when set, checks the fetched folder before it is put in
	// place (the command line runs every valid label on the database and
	// compares it with the published answers); its error fails the fetch.
	Verify func(ctx context.Context, dir string) error
	// Progress follows each download (see datasets.FetchOptions).
	Progress interface {
		io.Writer
		Restart(total int64)
	}
}

// Fetch downloads the shared task's published files into dir, in the
// layout clinsql's EHRSQL commands read (train/, valid/, test/,
// tables.json, mimic_iv/mimic_iv.sqlite, LICENSE), and writes SHA256SUMS.
// A pinned file whose checksum differs fails the fetch; so does a split
// that does not load or a database Verify refuses. Everything goes to a
// temporary folder renamed into place at the end, and the folders the
// fetch created are removed again when it fails: a failed fetch leaves
// nothing behind to be mistaken for data. An existing dir is left alone
// (an error says so).
func Fetch(ctx context.Context, dir string, opt FetchOptions) (err error) {
	if opt.BaseURL == "" {
		opt.BaseURL = BaseURL
	}
	if opt.Files == nil {
		opt.Files = Files
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	dir = filepath.Clean(dir)
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s already exists; remove it to fetch again", dir)
	}
	parent := filepath.Dir(dir)
	created := datasets.MissingDirs(parent)
	defer func() {
		if err != nil {
			for _, d := range created {
				os.Remove(d) // only if empty: never what was there before
			}
		}
	}()
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".ehrsql-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after the rename, nothing is left there
	var sums strings.Builder
	for _, f := range opt.Files {
		sum, err := fetchFile(ctx, opt, f, tmp)
		var se *datasets.StatusError
		switch {
		case errors.As(err, &se) && se.Code == http.StatusNotFound && f.Optional:
			fmt.Fprintf(opt.Log, "%s: not published at this commit; skipped\n", f.Path)
			continue
		case err != nil:
			return err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, f.Dest)
	}
	// Every split must load: the same ids in every file, annotations
	// agreeing with the labels.
	splits := map[string]bool{}
	for _, f := range opt.Files {
		if d, name := filepath.Split(filepath.FromSlash(f.Dest)); name == "data.json" {
			splits[filepath.Clean(d)] = true
		}
	}
	for s := range splits {
		if _, err := LoadSplit(filepath.Join(tmp, s)); err != nil {
			return fmt.Errorf("downloaded split %s does not load: %w", s, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "tables.json")); err == nil {
		if _, err := LoadTables(filepath.Join(tmp, "tables.json")); err != nil {
			return fmt.Errorf("downloaded tables.json does not load: %w", err)
		}
	}
	if opt.Verify != nil {
		if err := opt.Verify(ctx, tmp); err != nil {
			return fmt.Errorf("downloaded data refused: %w", err)
		}
	}
	src := opt.BaseURL
	if err := os.WriteFile(filepath.Join(tmp, SumsFile), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "SOURCE.txt"), []byte("EHRSQL 2024 shared task files fetched by clinsql datasets fetch ehrsql from\n"+src+"\n"+
		"Question and label files: CC BY 4.0 (LICENSE). mimic_iv.sqlite derives from the MIMIC-IV demo: ODbL v1.0.\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	fmt.Fprintf(opt.Log, "fetched %d files into %s\n", strings.Count(sums.String(), "\n"), dir)
	return nil
}

// fetchFile downloads one file into root, checks its size and pinned
// checksum, and returns its SHA-256.
func fetchFile(ctx context.Context, opt FetchOptions, f File, root string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(f.Dest))
	if filepath.IsAbs(clean) || clean == "." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || clean == ".." {
		return "", fmt.Errorf("%s: destination %q leaves the data folder", f.Path, f.Dest)
	}
	dest := filepath.Join(root, clean)
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	out, err := os.OpenFile(dest, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	defer out.Close()
	url := strings.TrimSuffix(opt.BaseURL, "/") + "/" + f.Path
	fmt.Fprintf(opt.Log, "downloading %s\n", url)
	max := f.MaxBytes
	if max == 0 {
		max = MaxFileBytes
	}
	if err := datasets.Download(ctx, datasets.FetchOptions{URL: url, SHA256: f.SHA256, Client: opt.Client, MaxBytes: max,
		Retries: opt.Retries, Progress: opt.Progress}, out); err != nil {
		out.Close()
		os.Remove(dest) // a file skipped as optional must not stay, empty
		return "", err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, out); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
