// Package testctx gives tests a context that ends on an event of the test
// rather than at a time: [WithExpiry]'s context ends with
// context.DeadlineExceeded when the test calls expire, exactly as if its
// deadline had passed. A test of a timeout can then decide the moment (once
// the fake holds the request, once the job exists), and a loaded machine
// can neither let a short deadline pass before the request is made nor
// stretch the test.
package testctx
