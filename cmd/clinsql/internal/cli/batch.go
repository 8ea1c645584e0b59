package cli

import (
	"flag"
	"time"
)

// addBatchWait adds --batch-wait, the bound on waiting for an endpoint in
// mode batch (see llm.BatchOptions.Wait).
func addBatchWait(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("batch-wait", 0, "endpoints in mode batch: how long to wait for the provider's batches before stopping incomplete (exit 3: run again to collect them; nothing is sent twice); 0 waits until they finish")
}
