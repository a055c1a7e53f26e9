package binaries

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/download"
	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/gobuild"
)

// fromReleases downloads what official releases provide of need, under
// base/downloads, one directory per version and platform, and checks each
// downloaded program's version as an assets directory's are. It returns
// what it provides, the directory of the Kubernetes downloads, and what is
// left to build; each failure is one line in log.
func fromReleases(ctx context.Context, opts Options, base string, pinned map[string]string, need []program, log io.Writer) (assets, string, []program) {
	found := assets{paths: map[string]string{}, versions: map[string]string{}}
	k8s := pinned[kubernetesModule]
	dl := filepath.Join(base, "downloads", fmt.Sprintf("%s-%s-%s", k8s, runtime.GOOS, runtime.GOARCH))
	var kwok, others, rest []program
	for _, p := range need {
		if p.module == kwokModule {
			kwok = append(kwok, p)
		} else {
			others = append(others, p)
		}
	}
	// take checks the version of what was downloaded into dir.
	take := func(dir string, got []program, what string) {
		a, bad := findAssets(ctx, dir, got, pinned, opts.VersionMismatch, log)
		found.add(a)
		rest = append(rest, bad...)
		if len(a.paths) > 0 {
			fmt.Fprintf(log, "envtest: using %s, %s into %s\n", strings.Join(sortedNames(a.paths), ", "), what, dir)
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(log, "envtest: downloading official release binaries of Kubernetes %s into %s (%s=off turns this off)\n", k8s, dl, DownloadEnv)
		got, r := downloadPrograms(ctx, opts, dl, k8s, others, log)
		rest = append(rest, r...)
		if len(got) > 0 {
			take(dl, got, "downloaded")
		}
	}
	if len(kwok) > 0 {
		v := pinned[kwokModule]
		dir := filepath.Join(base, "downloads", fmt.Sprintf("kwok-%s-%s-%s", v, runtime.GOOS, runtime.GOARCH))
		if !download.FileExists(filepath.Join(dir, gobuild.ExeName("kwok"))) {
			fmt.Fprintf(log, "envtest: downloading kwok %s and its stages from its release into %s\n", v, dir)
		}
		if err := download.Kwok(ctx, opts.kwokReleaseURL(), dir, v); err != nil {
			fmt.Fprintf(log, "envtest: download of kwok %s from its release failed (%v); building it instead\n", v, err)
			rest = append(rest, kwok...)
		} else {
			take(dir, kwok, "downloaded from kwok's release")
		}
	}
	return found, dl, rest
}

// downloadPrograms fetches the programs of need that official releases provide
// into dir, verifying each digest before a file takes its final name, and
// returns the programs it could not provide. A program already in dir (a
// verified earlier download) is not fetched again. Each failure is logged
// in one line; the caller builds what is left.
func downloadPrograms(ctx context.Context, opts Options, dir, version string, need []program, log io.Writer) (got, rest []program) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(log, "envtest: no download (%v); building instead\n", err)
		return nil, need
	}
	var tarball, single []program
	for _, p := range need {
		switch {
		case download.FileExists(filepath.Join(dir, gobuild.ExeName(p.name))):
			got = append(got, p)
		case slices.Contains(download.EnvtestTarballPrograms, p.name):
			tarball = append(tarball, p)
		case slices.Contains(download.KubernetesReleasePrograms, p.name):
			single = append(single, p)
		default:
			rest = append(rest, p)
		}
	}
	if len(tarball) > 0 {
		if err := download.EnvtestTarball(ctx, opts.releaseIndexURL(), dir, version); err != nil {
			fmt.Fprintf(log, "envtest: download of the envtest release %s failed (%v); building %s instead\n", version, err, names(tarball))
			rest = append(rest, tarball...)
		} else {
			got = append(got, tarball...)
		}
	}
	for _, p := range single {
		url := fmt.Sprintf("%s/%s/bin/%s/%s/%s", strings.TrimSuffix(opts.kubernetesReleaseURL(), "/"), version, runtime.GOOS, runtime.GOARCH, gobuild.ExeName(p.name))
		if err := download.KubernetesProgram(ctx, url, filepath.Join(dir, gobuild.ExeName(p.name))); err != nil {
			fmt.Fprintf(log, "envtest: download of %s %s failed (%v); building it instead\n", p.name, version, err)
			rest = append(rest, p)
		} else {
			got = append(got, p)
		}
	}
	return got, rest
}
