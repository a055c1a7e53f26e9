package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	// The command name may hold spaces and parentheses.
	line := "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 1000 0 0 0 250 130 0 0 20 0 9 0 12345 1000000 500 18446744073709551615\n"
	ppid, used, err := parseProcStat(line)
	if err != nil || ppid != 17 || used != 3800*time.Millisecond {
		t.Errorf("got ppid %d, %v, %v; want 17, 3.8s, no error", ppid, used, err)
	}
	for _, bad := range []string{"", "4242 (x S 1", "4242 (x) S 1 2 3"} {
		if _, _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q): no error", bad)
		}
	}
}

func TestParseMachineStat(t *testing.T) {
	stat := "cpu  600 10 100 250 40 0 10 0 0 0\ncpu0 300 5 50 125 20 0 5 0 0 0\n"
	busy, total, err := parseMachineStat(stat)
	if err != nil || busy != 7200*time.Millisecond || total != 10100*time.Millisecond {
		t.Errorf("got busy %v, total %v, %v; want 7.2s of 10.1s", busy, total, err)
	}
	if _, _, err := parseMachineStat("intr 1 2 3\n"); err == nil {
		t.Error("no cpu line: no error")
	}
}

// A child of this process is counted under its program's name, and this
// process under thisProcess.
func TestSampleCPUCountsChildren(t *testing.T) {
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	t.Cleanup(func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	})
	s, err := sampleCPU()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.byProgram["sleep"]; !ok {
		t.Errorf("programs %v: want sleep among them", s)
	}
	if _, ok := s.byProgram[thisProcess]; !ok || s.machineBusy <= 0 || s.machineTotal < s.machineBusy {
		t.Errorf("sample %v: want this process's and the machine's CPU time", s)
	}
	if strings.Contains(s.String(), "pid ") {
		t.Errorf("sample %v: a child without a program name", s)
	}
}
