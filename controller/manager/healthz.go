package manager

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Checker is one named health or readiness check: nil means healthy. It is
// called on every request to the endpoint, so it must be cheap.
type Checker func(req *http.Request) error

// Ping is a Checker that always succeeds: the server answering is the check.
func Ping(*http.Request) error { return nil }

// namedCheck keeps checks in registration order so that output is stable.
type namedCheck struct {
	name  string
	check Checker
	// detail, if set, follows "ok" in the verbose report: the Optional
	// parts say there what they watch.
	detail func() string
}

// checkSet is the list behind one endpoint (/healthz or /readyz).
type checkSet struct {
	mu     sync.Mutex
	checks []namedCheck
}

func (s *checkSet) add(name string, c Checker) error {
	return s.addNamed(namedCheck{name: name, check: c})
}

// addWithDetail adds a check that always passes and reports detail().
func (s *checkSet) addWithDetail(name string, detail func() string) error {
	return s.addNamed(namedCheck{name: name, check: Ping, detail: detail})
}

func (s *checkSet) addNamed(n namedCheck) error {
	name, c := n.name, n.check
	if name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("manager: invalid check name %q: it must be non-empty and contain no '/'", name)
	}
	if c == nil {
		return fmt.Errorf("manager: check %q is nil", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.ContainsFunc(s.checks, func(n namedCheck) bool { return n.name == name }) {
		return fmt.Errorf("manager: a check named %q already exists", name)
	}
	s.checks = append(s.checks, n)
	return nil
}

func (s *checkSet) snapshot() []namedCheck {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.checks)
}

// handler serves the set on prefix ("/healthz") and each check alone on
// prefix+"/"+name, in the format of the Kubernetes components: "ok", or one
// "[+]name ok" / "[-]name failed: reason" line per check with status 500 on
// failure or when the query has "verbose".
func (s *checkSet) handler(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		checks := s.snapshot()
		if name := strings.TrimPrefix(strings.TrimPrefix(req.URL.Path, prefix), "/"); name != "" {
			i := slices.IndexFunc(checks, func(n namedCheck) bool { return n.name == name })
			if i < 0 {
				http.NotFound(w, req)
				return
			}
			checks = checks[i : i+1]
		}
		var report strings.Builder
		failed := false
		for _, c := range checks {
			if err := c.check(req); err != nil {
				failed = true
				fmt.Fprintf(&report, "[-]%s failed: %v\n", c.name, err)
			} else if c.detail != nil {
				fmt.Fprintf(&report, "[+]%s ok: %s\n", c.name, c.detail())
			} else {
				fmt.Fprintf(&report, "[+]%s ok\n", c.name)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", report.String(), strings.TrimPrefix(prefix, "/"))
			return
		}
		if _, verbose := req.URL.Query()["verbose"]; verbose {
			fmt.Fprintf(w, "%s%s check passed\n", report.String(), strings.TrimPrefix(prefix, "/"))
			return
		}
		fmt.Fprint(w, "ok")
	})
}

// errNotSynced lists what has not synced yet.
func errNotSynced(names []string) error {
	if len(names) == 0 {
		return nil
	}
	return errors.New("not synced: " + strings.Join(names, ", "))
}
