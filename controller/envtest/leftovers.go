package envtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// instanceDirPrefix names the temporary directories Start creates.
const instanceDirPrefix = "ctrlkit-envtest-"

// ownerFile, in an instance directory Start created, holds the pid of the
// process that owns it.
const ownerFile = "owner.pid"

// writeOwner marks dir as owned by this process.
func writeOwner(dir string) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
}

// removeLeftovers deletes the instance directories of processes that died
// without stopping their control plane (a test binary killed by its
// timeout, say). Their components died with them (see internal/childproc); only
// the files remain. A directory is removed only if its owner file names a
// process that surely no longer exists; anything unclear is left alone.
func removeLeftovers(tmp string) {
	matches, err := filepath.Glob(filepath.Join(tmp, instanceDirPrefix+"*"))
	if err != nil {
		return
	}
	for _, dir := range matches {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 || pid == os.Getpid() || processExists(pid) {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}
