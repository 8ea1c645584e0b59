// Package safefile opens the files of a folder that clinsql writes or
// reads back (an output folder, a run folder, a cache) so that nothing
// placed in the folder can redirect, stall or flood the process that
// opens it.
//
// A folder is opened once with [OpenDir] (or [MkdirAll]); its files are
// then named relative to it, and every open:
//
//   - stays inside the folder: the name must be local (no absolute path,
//     no ".." above the folder), and the folders on the way are resolved
//     with [os.Root], which refuses a symbolic link leading outside;
//   - does not follow a symbolic link at the file itself (O_NOFOLLOW): a
//     link is refused with [ErrNotRegular], even one pointing inside the
//     folder, so that a file is always the one its name says;
//   - opens regular files only: a FIFO, a device, a socket or a folder is
//     refused with [ErrNotRegular], and opening never blocks on one (the
//     open is non-blocking until the file is known to be regular, so a
//     FIFO with no writer is an error, never a hang);
//   - for writing, refuses a file with more than one hard link (a link to
//     a file elsewhere would write there) and truncates (O_TRUNC) only
//     after those checks;
//   - reads a bounded number of bytes ([Dir.ReadFile], [Dir.OpenReader]):
//     a file over its limit is refused with [ErrTooLarge] naming it.
//
// Errors name the file by its full path. The helpers [OpenFile] and
// [ReadFile] do one operation on a folder given by its path.
//
//	d, err := safefile.MkdirAll(out)
//	defer d.Close()
//	f, err := d.OpenFile("spending.jsonl", os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
//	b, err := d.ReadFile("llm-cache/ab/abcd.json", 64<<20)
//	err = d.WriteFile("judge_summary.json", data, 0o644) // temp, fsync, rename
//
// The folder itself (the path given to OpenDir) is the caller's choice
// and may be reached through links; what is inside it is not trusted.
// What the package does not do: authenticate contents (a file may still
// be forged in place), or bound the time a read takes on a slow disk.
package safefile
