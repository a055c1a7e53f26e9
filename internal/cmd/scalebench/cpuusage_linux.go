package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Go supports.
const clockTick = 10 * time.Millisecond

// sampleCPU reads this process's, its children's and the machine's CPU
// time from /proc.
func sampleCPU() (cpuSample, error) {
	s := cpuSample{byProgram: map[string]time.Duration{}}
	self := os.Getpid()
	_, used, err := readProcStat(self)
	if err != nil {
		return s, err
	}
	s.byProgram[thisProcess] = used
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return s, err
	}
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil {
			continue
		}
		ppid, used, err := readProcStat(pid)
		if err != nil || ppid != self {
			continue // gone meanwhile, or not ours
		}
		s.byProgram[programName(pid)] += used
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, err
	}
	s.machineBusy, s.machineTotal, err = parseMachineStat(string(stat))
	return s, err
}

// readProcStat returns pid's parent and the CPU time it has used, user and
// system.
func readProcStat(pid int) (ppid int, used time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	return parseProcStat(string(b))
}

// parseProcStat reads the parent and utime + stime of a /proc/<pid>/stat
// line. The command name, field 2, is in parentheses and may hold spaces
// and parentheses itself, so the fields are counted from its last ')'.
func parseProcStat(line string) (ppid int, used time.Duration, err error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0, 0, errors.New("/proc stat: no command name")
	}
	// From field 3 (state) on: ppid is field 4, utime 14, stime 15.
	fields := strings.Fields(line[end+1:])
	if len(fields) < 13 {
		return 0, 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least 13", len(fields))
	}
	ppid, err = strconv.Atoi(fields[1])
	if err != nil {
		return 0, 0, fmt.Errorf("/proc stat ppid: %w", err)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc stat CPU time: %w", err)
		}
		ticks += n
	}
	return ppid, time.Duration(ticks) * clockTick, nil
}

// parseMachineStat reads the busy and total time of all cores from
// /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal
// (guest time is already in user). Idle and iowait are not busy.
func parseMachineStat(stat string) (busy, total time.Duration, err error) {
	line, _, _ := strings.Cut(stat, "\n")
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: first line %q, want the cpu totals", line)
	}
	var ticks [8]int64
	for i := range ticks {
		if ticks[i], err = strconv.ParseInt(fields[1+i], 10, 64); err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
	}
	var sum int64
	for _, t := range ticks {
		sum += t
	}
	idle := ticks[3] + ticks[4]
	return time.Duration(sum-idle) * clockTick, time.Duration(sum) * clockTick, nil
}

// programName is the base name of the program pid runs, from its command
// line: /proc's command name is cut at 15 bytes ("kube-controller").
func programName(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "pid " + strconv.Itoa(pid)
	}
	argv0, _, _ := strings.Cut(string(b), "\x00")
	return filepath.Base(argv0)
}
