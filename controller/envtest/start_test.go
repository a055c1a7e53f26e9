//go:build unix

package envtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages/stagestest"
)

// fakeBinaries makes a binaries.Set of shell scripts standing in for
// the real programs, so that Start's failure handling can be tested without
// building anything.
func fakeBinaries(t *testing.T, scripts map[string]string) *binaries.Set {
	t.Helper()
	dir := t.TempDir()
	for _, name := range fullPrograms {
		body, ok := scripts[name]
		if !ok {
			body = "exec sleep 300"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stages := filepath.Join(dir, "stages", "pod", "fast")
	if err := os.MkdirAll(stages, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stages, "pod-ready.yaml"), []byte(stagestest.PodReady), 0o644); err != nil {
		t.Fatal(err)
	}
	return &binaries.Set{Dir: dir, Versions: map[string]string{"k8s.io/kubernetes": "v1.37.2"}}
}

// fullPrograms are the programs a Full environment runs.
var fullPrograms = []string{"etcd", "kube-apiserver", "kwok", "kube-scheduler", "kube-controller-manager"}

func TestStartRetriesWhenAPortIsTakenThenGivesUpCleanly(t *testing.T) {
	bins := fakeBinaries(t, map[string]string{
		"etcd": "echo 'listen tcp 127.0.0.1:2379: bind: address already in use'; exit 1",
	})
	var log strings.Builder
	env, err := Start(t.Context(), Options{Binaries: bins, Log: &log, StartTimeout: 30 * time.Second})
	if err == nil {
		env.Stop()
		t.Fatal("Start succeeded with an etcd that cannot bind")
	}
	if !errors.Is(err, errPortInUse) || !strings.Contains(err.Error(), "etcd exited") {
		t.Errorf("err = %v, want etcd's port-in-use exit", err)
	}
	if got := strings.Count(log.String(), "starting again on other ports"); got != 2 {
		t.Errorf("retried %d times, want 2 (3 attempts)\n%s", got, log.String())
	}
	// Every attempt's temporary directory is gone: Stop ran each time.
	for _, line := range strings.Split(log.String(), "\n") {
		if _, dir, ok := strings.Cut(line, "envtest: starting (APIServerOnly) in "); ok {
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("instance directory %s left behind (stat: %v)", dir, err)
			}
		}
	}
}

func TestStartFailsWithComponentLogWhenAPIServerDies(t *testing.T) {
	bins := fakeBinaries(t, map[string]string{
		"kube-apiserver": "echo 'E0101 bad flag --nope'; exit 2",
	})
	keep := t.TempDir()
	_, err := Start(t.Context(), Options{Binaries: bins, Dir: keep, StartTimeout: 30 * time.Second})
	if err == nil {
		t.Fatal("Start succeeded with a failing kube-apiserver")
	}
	for _, want := range []string{"kube-apiserver exited", "exit status 2", "bad flag --nope"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if errors.Is(err, errPortInUse) {
		t.Error("a bad flag was taken for a port conflict")
	}
	// A given Dir is kept, with the logs.
	if _, err := os.Stat(filepath.Join(keep, "kube-apiserver.log")); err != nil {
		t.Errorf("log not kept in the given Dir: %v", err)
	}
}

func TestStartTimesOutAndStopsEverything(t *testing.T) {
	// Every program records its pid and sleeps: the API server never
	// becomes ready.
	pidFile := filepath.Join(t.TempDir(), "pids")
	record := "echo $$ >> " + pidFile + "; exec sleep 300"
	scripts := map[string]string{}
	for _, name := range fullPrograms {
		scripts[name] = record
	}
	_, err := Start(t.Context(), Options{Binaries: fakeBinaries(t, scripts), StartTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "timed out waiting for kube-apiserver") {
		t.Fatalf("err = %v, want a timeout waiting for kube-apiserver", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(data))
	if len(pids) != 2 {
		t.Fatalf("started %d processes (%q), want etcd and kube-apiserver", len(pids), pids)
	}
	for _, pid := range pids {
		n, err := strconv.Atoi(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after a failed Start (kill 0: %v)", n, err)
		}
	}
}
