package manager

import (
	"net/http"
	"net/http/pprof"
)

// pprofHandler serves net/http/pprof's handlers under /debug/pprof/ on a
// mux of its own: the Manager's servers never serve http.DefaultServeMux,
// where the import also registers them.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and the named profiles: heap, goroutine, ...
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
