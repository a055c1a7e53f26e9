//go:build linux

package envtestuser

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// childEnv, set in the environment of a re-executed test binary, names
// what TestChildStartsEnvironmentAndEnds does: "fail" or "interrupt".
const childEnv = "ENVTESTUSER_CHILD"

// A test that fails, and a test binary interrupted with SIGINT, leave no
// process, listening port or directory of their environment behind. Each
// runs in a child test binary, which reports what its environment runs
// before it ends.
func TestStopLeavesNothingRunning(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"fail", "interrupt"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildStartsEnvironmentAndEnds$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+how)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("child: err = %v, want a failed exit\n%s", err, out)
			}
			status := exit.Sys().(syscall.WaitStatus)
			switch how {
			case "fail":
				if !strings.Contains(string(out), "--- FAIL: TestChildStartsEnvironmentAndEnds") {
					t.Fatalf("child test did not fail:\n%s", out)
				}
			case "interrupt":
				if !status.Signaled() || status.Signal() != syscall.SIGINT {
					t.Fatalf("child ended with %v, want killed by SIGINT\n%s", status, out)
				}
			}
			pids, ports, dir := parseReport(t, string(out))
			if len(pids) != 2 || len(ports) < 3 {
				t.Fatalf("child reported pids %v and listening ports %v, want etcd's and kube-apiserver's\n%s", pids, ports, out)
			}
			for _, pid := range pids {
				if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
					t.Errorf("process %d still exists (kill 0: %v)", pid, err)
				}
			}
			for _, port := range ports {
				l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
				if err != nil {
					t.Errorf("port %d still taken: %v", port, err)
					continue
				}
				l.Close()
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("directory %s left behind (stat: %v)", dir, err)
			}
		})
	}
}

// TestChildStartsEnvironmentAndEnds runs only in a child of
// TestStopLeavesNothingRunning: it starts an environment, reports its
// processes, their listening ports and its directory, then fails or
// interrupts itself.
func TestChildStartsEnvironmentAndEnds(t *testing.T) {
	how := os.Getenv(childEnv)
	if how == "" {
		t.Skip("run by TestStopLeavesNothingRunning")
	}
	child := envtest.StartForTest(t, envtest.Options{})
	pids := childPids(t)
	for _, pid := range pids {
		fmt.Printf("REPORT pid %d\n", pid)
	}
	for _, port := range listeningPorts(t, pids) {
		fmt.Printf("REPORT port %d\n", port)
	}
	fmt.Printf("REPORT dir %s\n", child.Dir())
	switch how {
	case "fail":
		t.Fatal("failing on purpose, with the environment running")
	case "interrupt":
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute) // the signal ends the process long before
		t.Fatal("still running a minute after SIGINT")
	}
}

func parseReport(t *testing.T, out string) (pids, ports []int, dir string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "REPORT" {
			continue
		}
		if f[1] == "dir" {
			dir = f[2]
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("report line %q: %v", sc.Text(), err)
		}
		if f[1] == "pid" {
			pids = append(pids, n)
		} else {
			ports = append(ports, n)
		}
	}
	if dir == "" {
		t.Fatalf("child reported no directory:\n%s", out)
	}
	return pids, ports, dir
}

// childPids lists the processes whose parent is this one.
func childPids(t *testing.T) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// listeningPorts lists the TCP ports on which the processes pids listen:
// the sockets among their open files that /proc/net/tcp shows listening.
func listeningPorts(t *testing.T, pids []int) []int {
	t.Helper()
	inodes := map[string]bool{}
	for _, pid := range pids {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && strings.HasPrefix(target, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
			}
		}
	}
	var ports []int
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			const listen = "0A"
			if len(f) < 10 || f[3] != listen || !inodes[f[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
				ports = append(ports, int(port))
			}
		}
	}
	return ports
}
