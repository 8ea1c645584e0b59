package duckdb

import (
	"context"
	"io"
	"os"
	"sync"
)

// ServeIfWorker makes this process an engine's worker when an Engine
// started it as one (see worker.go), and then exits; in any other process
// it returns at once. Every binary that opens an Engine calls it first
// thing in main, and every test binary in TestMain, before anything else
// runs: the worker is this binary started again, and would otherwise run
// the program (or the tests) a second time. The dialect's Go functions
// (DefineFunctions) are defined by init functions, which have run by
// then.
func ServeIfWorker() {
	if os.Getenv(workerEnv) == "" {
		return
	}
	if os.Getenv(workerEnv) != protocol {
		os.Stderr.WriteString("duckdb worker: protocol " + os.Getenv(workerEnv) + " from the parent, this binary speaks " + protocol + "\n")
		os.Exit(2)
	}
	os.Exit(serve(os.NewFile(3, "requests"), os.NewFile(4, "responses")))
}

// maxRequestBytes bounds a request frame (the parent's translated SQL).
const maxRequestBytes = 1 << 30

// serve opens the database the parent describes and answers its requests,
// each on its own goroutine, until the request pipe closes.
func serve(in io.Reader, out io.Writer) int {
	var cfg setup
	if err := readFrame(in, maxRequestBytes, &cfg); err != nil {
		return 1
	}
	l, err := openLocal(cfg)
	if err != nil {
		writeFrame(out, handshake{Err: err.Error()})
		return 1
	}
	defer l.close()
	if err := writeFrame(out, handshake{}); err != nil {
		return 1
	}
	var mu sync.Mutex // writes, and cancels
	cancels := map[uint64]context.CancelFunc{}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var req request
		if err := readFrame(in, maxRequestBytes, &req); err != nil {
			// The parent closed the pipe (or died): stop what runs.
			mu.Lock()
			for _, cancel := range cancels {
				cancel()
			}
			mu.Unlock()
			return 0
		}
		if req.Op == opCancel {
			mu.Lock()
			if cancel := cancels[req.ID]; cancel != nil {
				cancel()
			}
			mu.Unlock()
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
		mu.Lock()
		cancels[req.ID] = cancel
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := handle(ctx, l, req)
			b, err := encodeFrame(resp)
			if err != nil {
				// Every request is answered: the parent would otherwise
				// wait for it until it kills the worker.
				b, _ = encodeFrame(response{ID: req.ID, Err: &wireError{Msg: "the result could not be sent: " + err.Error()}})
			}
			mu.Lock()
			defer mu.Unlock()
			cancel()
			delete(cancels, req.ID)
			out.Write(b)
		}()
	}
}

// handle runs one request.
func handle(ctx context.Context, l *local, req request) response {
	resp := response{ID: req.ID}
	switch req.Op {
	case opCheck:
		if err := checkSelects(ctx, req.SQL, req.Script); err != nil {
			resp.Err = encodeError(err)
		}
	case opRun:
		res, err := l.exec(ctx, req.SQL, req.Checks, req.Redefine)
		if err != nil {
			resp.Err = encodeError(err)
			break
		}
		resp.Result = &wireResult{Columns: res.Columns, Rows: res.Rows, Truncated: res.Truncated, TotalRows: res.TotalRows, ByteCapped: res.ByteCapped}
	default:
		resp.Err = &wireError{Msg: "unknown request"}
	}
	return resp
}
