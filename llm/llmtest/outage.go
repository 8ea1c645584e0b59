package llmtest

import (
	"net"
	"net/http"
)

// Down makes the server answer every request (chat completions, files and
// batches) with r until [Server.Up]: a status (ServerError(503)), a reply
// broken on the wire (Broken(Malformed), Broken(Disconnect)) or Hang(). A
// request answered so does nothing: no call is recorded, no file stored,
// no batch created or advanced. It stands for a provider, or a proxy in
// front of it, that is unreachable for a while.
func (s *Server) Down(r Reply) {
	s.omu.Lock()
	defer s.omu.Unlock()
	s.outage = &r
}

// Refuse closes the server's listener and its open connections: every
// connection is refused until [Server.Up], which listens again on the
// same address.
func (s *Server) Refuse() {
	s.omu.Lock()
	defer s.omu.Unlock()
	if s.refused {
		return
	}
	s.refused = true
	s.ts.Listener.Close()
	s.ts.CloseClientConnections()
}

// Up ends [Server.Down] and [Server.Refuse]: the server answers again, with
// the files and batches it held.
func (s *Server) Up() error {
	s.omu.Lock()
	defer s.omu.Unlock()
	s.outage = nil
	if !s.refused {
		return nil
	}
	ln, err := net.Listen("tcp", s.ts.Listener.Addr().String())
	if err != nil {
		return err
	}
	s.refused = false
	s.ts.Listener = ln
	go func() { _ = s.ts.Config.Serve(ln) }()
	return nil
}

// down answers r while the server is down; it reports whether it did.
func (s *Server) down(w http.ResponseWriter, r *http.Request) bool {
	s.omu.Lock()
	o := s.outage
	s.omu.Unlock()
	if o == nil {
		return false
	}
	if !s.wait(r, o.Delay) {
		return true // the client gave up or the server is closing
	}
	s.write(w, &Call{Path: r.URL.Path}, *o)
	return true
}
