package llm

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// SpendingFile is the name of a folder's spending record, written by a
// [Meter] opened with [OpenMeter].
const SpendingFile = "spending.jsonl"

// maxSpendLine bounds one line of a spending file: records are a few
// hundred bytes, so anything longer is damage, not data.
const maxSpendLine = 64 << 10

// spendRecord is one line of a spending file. A "reserve" line is written
// and fsynced before its request is sent; the matching "settle" line
// replaces the reservation with what the attempt cost. A reservation
// without its settle line (the process was killed while the request was in
// flight) counts at its full amount for ever: the provider may have billed
// it, and nothing says otherwise.
type spendRecord struct {
	Op   string    `json:"op"` // "open", "reserve" or "settle"
	ID   string    `json:"id,omitempty"`
	Time time.Time `json:"time"`
	// open: the process that opened the file and its cap.
	PID       int     `json:"pid,omitempty"`
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	// reserve: the worst case of the attempt.
	Endpoint string `json:"endpoint,omitempty"`
	Model    string `json:"model,omitempty"`
	// reserve: estimated prompt tokens and the token cap; settle: the
	// reported usage.
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// WorstUSD (reserve) prices the worst case at list prices; USD is what
	// was reserved (WorstUSD scaled by the overrun factor) or, on a settle
	// line, what the attempt is charged.
	WorstUSD float64 `json:"worst_usd,omitempty"`
	USD      float64 `json:"usd"`
	// Usage (settle) says where the charge comes from: "reported" by the
	// provider, "none" (nothing was sent, or the provider answered with an
	// error status), "unknown" (sent, but no usable reply: charged at the
	// reservation).
	Usage string `json:"usage,omitempty"`
	// Overrun (settle): the reported usage cost more than the reservation.
	Overrun bool `json:"overrun,omitempty"`
	// Batch (reserve): a request sent through the batch API, priced at the
	// batch share.
	Batch bool `json:"batch,omitempty"`
}

// FolderSpending is what a folder's spending file held when a [Meter]
// opened it.
type FolderSpending struct {
	// SpentUSD is every reconciled attempt's charge plus every
	// reservation never reconciled.
	SpentUSD float64
	// Runs counts the processes that opened the file before.
	Runs int
	// Attempts counts the reconciled requests.
	Attempts int
	// Unreconciled counts the requests in flight when an earlier process
	// died; UnreconciledUSD, their reservations, is part of SpentUSD.
	Unreconciled    int
	UnreconciledUSD float64
	// Overrun is the largest ratio of an attempt's reported cost to its
	// worst case at list prices (1: usage never exceeded the cap sent).
	// A model's reservations are scaled by its own largest ratio.
	Overrun float64
	factors map[string]float64 // by model
	// open are the unreconciled reservations, by id: a later process that
	// learns what one cost settles it (Meter.settleOrphan).
	open   map[string]*reservation
	models map[string]string // model of each open reservation
}

// spendFile is an open spending file, locked against other processes.
type spendFile struct {
	f    *os.File
	path string
}

// openSpendFile opens (creating) the spending file at path, takes an
// exclusive lock on it, reads it and drops a torn last line. A torn line is
// a write the process did not finish; a reservation is synced before its
// request is sent, so a torn reservation was never sent, and a torn settle
// line only leaves its reservation counting in full.
func openSpendFile(path string) (*spendFile, FolderSpending, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, FolderSpending{}, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, FolderSpending{}, fmt.Errorf("%s is in use by another process: one process at a time may spend from a folder", path)
		}
		return nil, FolderSpending{}, fmt.Errorf("lock %s: %w", path, err)
	}
	st, valid, err := readSpending(f, path)
	if err == nil {
		if end, serr := f.Seek(0, io.SeekEnd); serr != nil {
			err = serr
		} else if end > valid {
			err = f.Truncate(valid)
		}
	}
	if err != nil {
		f.Close()
		return nil, FolderSpending{}, err
	}
	return &spendFile{f: f, path: path}, st, nil
}

// readSpending replays a spending file: its totals and the length of its
// whole lines. Damage other than a torn last line is an error naming the
// file and line.
func readSpending(r io.Reader, path string) (FolderSpending, int64, error) {
	st := FolderSpending{Overrun: 1, factors: map[string]float64{}}
	open := map[string]float64{} // reservations not yet settled
	worst := map[string]float64{}
	model := map[string]string{}
	batch := map[string]bool{}
	br := bufio.NewReaderSize(r, maxSpendLine)
	var valid int64
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return st, valid, fmt.Errorf("%s: line %d: longer than %d bytes", path, line, maxSpendLine)
		}
		if err == io.EOF {
			break // a torn or empty tail
		}
		if err != nil {
			return st, valid, fmt.Errorf("%s: %w", path, err)
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s: line %d: %s", path, line, fmt.Sprintf(format, a...))
		}
		var rec spendRecord
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return st, valid, bad("%v", err)
		}
		if rec.USD < 0 || math.IsNaN(rec.USD) || math.IsInf(rec.USD, 0) || rec.WorstUSD < 0 || math.IsNaN(rec.WorstUSD) || math.IsInf(rec.WorstUSD, 0) {
			return st, valid, bad("usd must be a non-negative number")
		}
		switch rec.Op {
		case "open":
			st.Runs++
		case "reserve":
			if _, dup := open[rec.ID]; dup || rec.ID == "" {
				return st, valid, bad("reservation id %q is empty or used twice", rec.ID)
			}
			open[rec.ID], worst[rec.ID], model[rec.ID], batch[rec.ID] = rec.USD, rec.WorstUSD, rec.Model, rec.Batch
		case "settle":
			if _, ok := open[rec.ID]; !ok {
				return st, valid, bad("settles %q, which has no open reservation", rec.ID)
			}
			delete(open, rec.ID)
			st.SpentUSD += rec.USD
			st.Attempts++
			if w := worst[rec.ID]; rec.Overrun && w > 0 {
				m := model[rec.ID]
				st.factors[m] = max(st.factors[m], rec.USD/w)
				st.Overrun = max(st.Overrun, rec.USD/w)
			}
			delete(worst, rec.ID)
			delete(model, rec.ID)
			delete(batch, rec.ID)
		default:
			return st, valid, bad("unknown op %q", rec.Op)
		}
		valid += int64(len(b))
	}
	st.open, st.models = map[string]*reservation{}, map[string]string{}
	for id, usd := range open {
		st.Unreconciled++
		st.UnreconciledUSD += usd
		st.open[id] = &reservation{id: id, usd: usd, worst: worst[id], batch: batch[id], orphan: true}
		st.models[id] = model[id]
	}
	st.SpentUSD += st.UnreconciledUSD
	return st, valid, nil
}

// Where a settle line's charge comes from.
const (
	usageReported = "reported"
	usageNone     = "none"
	usageUnknown  = "unknown"
)

// append writes one record as one line (one write call, so a killed process
// leaves whole lines or a torn last one).
func (s *spendFile) append(rec spendRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("record spending in %s: %w", s.path, err)
	}
	return nil
}

func (s *spendFile) sync() error {
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("record spending in %s: %w", s.path, err)
	}
	return nil
}

func (s *spendFile) close() error { return s.f.Close() }

// OpenMeter returns a meter whose spending is recorded in dir's
// [SpendingFile] and accumulates over every process that opens it:
// budgetUSD > 0 caps what the folder will ever have spent, not what one
// process spends. The file is locked while the meter is open (a second
// process is refused); Close releases it.
func OpenMeter(dir string, prices Prices, budgetUSD float64) (*Meter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sf, st, err := openSpendFile(filepath.Join(dir, SpendingFile))
	if err != nil {
		return nil, err
	}
	m := NewMeter(prices, budgetUSD)
	m.journal, m.resumed = sf, st
	m.spent = st.SpentUSD
	maps.Copy(m.factor, st.factors)
	m.orphans = maps.Clone(st.open)
	if err := sf.append(spendRecord{Op: "open", Time: time.Now().UTC(), PID: os.Getpid(), BudgetUSD: budgetUSD}); err != nil {
		sf.close()
		return nil, err
	}
	return m, nil
}

// newToken returns a random prefix for reservation ids, unique per meter so
// that processes sharing a file over time never reuse an id.
func newToken() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
