package scripted

import "net"

// ClosedURL is a base URL (…/v1) of a local port where nothing listens:
// a model endpoint that refuses connections, for tests of what Autarch
// says then. It returns "" (and fails t) when no port can be had.
func ClosedURL(t TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Errorf("listen: %v", err)
		return ""
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}
