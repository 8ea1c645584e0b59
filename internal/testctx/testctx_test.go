package testctx

import (
	"context"
	"errors"
	"testing"
)

func TestWithExpiry(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(expire func(), cancel, parent context.CancelFunc)
		want error
	}{
		{"expire", func(expire func(), _, _ context.CancelFunc) { expire() }, context.DeadlineExceeded},
		{"cancel", func(_ func(), cancel, _ context.CancelFunc) { cancel() }, context.Canceled},
		{"parent", func(_ func(), _, parent context.CancelFunc) { parent() }, context.Canceled},
		{"expire then cancel", func(expire func(), cancel, _ context.CancelFunc) { expire(); cancel() }, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, stop := context.WithCancel(context.WithValue(context.Background(), "k", "v"))
			defer stop()
			ctx, expire, cancel := WithExpiry(parent)
			if ctx.Err() != nil || ctx.Value("k") != "v" {
				t.Fatalf("fresh context: err %v, value %v", ctx.Err(), ctx.Value("k"))
			}
			tc.end(expire, cancel, stop)
			<-ctx.Done()
			if !errors.Is(ctx.Err(), tc.want) {
				t.Errorf("err %v, want %v", ctx.Err(), tc.want)
			}
			// A context derived from it ends with it, with its error.
			child, cc := context.WithCancel(ctx)
			defer cc()
			<-child.Done()
			if !errors.Is(child.Err(), tc.want) {
				t.Errorf("child err %v, want %v", child.Err(), tc.want)
			}
		})
	}
}
