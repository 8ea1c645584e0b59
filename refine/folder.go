package refine

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/clinsql/clinsql/internal/safefile"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/runfolder"
)

// FolderOptions say how a generation's output folder is opened.
type FolderOptions struct {
	// Out is the folder (created if need be); Cache the reply cache
	// ("": Out/llm-cache); Prices a price table file ("": none), which
	// Budget (0: none) caps what Out will ever spend, over every run.
	Out, Cache, Prices string
	Budget             float64
	// Log receives where the folder's spending stands.
	Log io.Writer
}

// Folder is what a generation keeps in its output folder beside the
// runs: the reply cache, authenticated with this machine's key (replies
// cached elsewhere are bought again); with prices, the spending record;
// and generate.log, where the clients' retries and each task's outcome
// are logged (on a terminal they would bury the progress line). Close
// closes them.
type Folder struct {
	Cache  *llm.Cache
	Meter  *llm.Meter // nil without prices
	Logger *slog.Logger
	log    *os.File
}

// OpenFolder opens the output folder o names.
func OpenFolder(o FolderOptions) (*Folder, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	dir := o.Cache
	if dir == "" {
		dir = filepath.Join(o.Out, runfolder.LLMCacheDir)
	}
	f := &Folder{}
	var err error
	if f.Cache, err = llm.OpenLocalCache(dir); err != nil {
		return nil, err
	}
	if o.Prices != "" {
		prices, err := llm.LoadPrices(o.Prices)
		if err != nil {
			return nil, err
		}
		if f.Meter, err = llm.OpenFolderMeter(o.Log, o.Out, prices, o.Budget); err != nil {
			return nil, err
		}
	}
	// Opened without following a link: a FIFO or a link there is
	// refused, never written through.
	if f.log, err = safefile.OpenFile(o.Out, "generate.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
		f.Close()
		return nil, err
	}
	f.Logger = slog.New(slog.NewTextHandler(f.log, nil))
	return f, nil
}

// LLM are the folder's client options: its cache, meter and logger.
func (f *Folder) LLM() llm.Options {
	return llm.Options{Cache: f.Cache, Meter: f.Meter, Logger: f.Logger}
}

// Close closes the spending record and the log.
func (f *Folder) Close() {
	if f.Meter != nil {
		f.Meter.Close()
	}
	if f.log != nil {
		f.log.Close()
	}
}
