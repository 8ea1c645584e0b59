// Package localkey keeps this machine's secret key, with which clinsql
// authenticates what it writes for itself to read back later: a judge
// ledger's records (clinsql judge resumes from them) and the LLM reply
// cache's entries. An output folder copied from elsewhere, or shipped
// inside a run folder, was not written with this key: its entries fail
// authentication and are decided again, never trusted because their
// contents look right (a plain checksum anyone can recompute).
//
// The key is 32 random bytes, kept hex-encoded in local.key in the user's
// configuration folder ($CLINSQL_CONFIG_DIR, else os.UserConfigDir()/clinsql,
// that is $XDG_CONFIG_HOME/clinsql or ~/.config/clinsql on Linux), created
// on first use with mode 0600 in a folder of mode 0700; a key file that
// others may read is refused. Deleting it makes every ledger and cache
// entry written before foreign: decided again, paid again.
//
//	k, err := localkey.Default() // localkey.Load(localkey.Dir())
//	mac := k.Sum([]byte("ledger record"), line)
//	ok := k.Verify(mac, []byte("ledger record"), line)
package localkey
