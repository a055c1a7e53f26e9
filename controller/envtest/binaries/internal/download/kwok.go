package download

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultKwokReleaseURL is where kwok's GitHub releases are listed by tag:
// GET <url>/<version> answers the release with its assets, each with the
// SHA-256 digest GitHub computed when it was uploaded ("sha256:<hex>").
// kwok publishes no checksums file of its own: its release script uploads
// each binary as kwok-<os>-<arch> (".exe" on Windows) and the kustomize
// build of its fast stages (node/fast, node/heartbeat-with-lease,
// pod/fast) as stage-fast.yaml, and GitHub's digests are the checksums
// published with them. binaries.Options.KwokReleaseURL replaces it.
const DefaultKwokReleaseURL = "https://api.github.com/repos/kubernetes-sigs/kwok/releases/tags"

// KwokStagesAsset is the release asset holding the stages envtest uses, the
// same stage sets a build copies from the kwok module.
const KwokStagesAsset = "stage-fast.yaml"

// githubRelease is the part of GitHub's release object that is read.
type githubRelease struct {
	TagName string `json:"tag_name"`
	Assets  []struct {
		Name   string `json:"name"`
		URL    string `json:"browser_download_url"`
		Digest string `json:"digest"`
	} `json:"assets"`
}

// KwokAssetName is the name of kwok's binary for this platform in its
// release.
func KwokAssetName() string {
	name := fmt.Sprintf("kwok-%s-%s", runtime.GOOS, runtime.GOARCH)
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// Kwok gets kwok of version and its stages from its release into
// dir (dir/kwok and dir/stages/stage-fast.yaml), unless a verified earlier
// download is there. Both files are downloaded and their digests checked
// before either takes its final name, so a failure leaves nothing behind
// and nothing unverified is run.
func Kwok(ctx context.Context, releaseURL, dir, version string) error {
	bin, stages := filepath.Join(dir, exeName("kwok")), filepath.Join(dir, "stages")
	if FileExists(bin) && FileExists(stages) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	url := strings.TrimSuffix(releaseURL, "/") + "/" + version
	data, err := fetchSmall(ctx, url)
	if err != nil {
		return err
	}
	var rel githubRelease
	if err := json.Unmarshal(data, &rel); err != nil {
		return fmt.Errorf("release %s: %w", url, err)
	}
	if rel.TagName != version {
		return fmt.Errorf("release %s is %q, not %s", url, rel.TagName, version)
	}
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.RemoveAll(t) // no-ops once renamed into place
		}
	}()
	files := map[string]string{}
	for _, name := range []string{KwokAssetName(), KwokStagesAsset} {
		i := -1
		for j, a := range rel.Assets {
			if a.Name == name {
				i = j
			}
		}
		if i < 0 {
			return fmt.Errorf("release %s has no %s", version, name)
		}
		a := rel.Assets[i]
		hexDigest, ok := strings.CutPrefix(a.Digest, "sha256:")
		if !ok {
			return fmt.Errorf("release %s gives no SHA-256 digest for %s (%q)", version, name, a.Digest)
		}
		tmp, err := fetchVerified(ctx, a.URL, sha256.New(), hexDigest, dir)
		if err != nil {
			return err
		}
		tmps = append(tmps, tmp)
		files[name] = tmp
	}

	// Both verified: the stages first, so that a kwok in dir always has them.
	if !FileExists(stages) {
		st, err := os.MkdirTemp(dir, ".stages-")
		if err != nil {
			return err
		}
		tmps = append(tmps, st)
		if err := os.Rename(files[KwokStagesAsset], filepath.Join(st, KwokStagesAsset)); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(st, KwokStagesAsset), 0o644); err != nil {
			return err
		}
		if err := os.Chmod(st, 0o755); err != nil {
			return err
		}
		// Another process may have put its verified stages there first.
		if err := os.Rename(st, stages); err != nil && !FileExists(stages) {
			return err
		}
	}
	if err := os.Chmod(files[KwokAssetName()], 0o755); err != nil {
		return err
	}
	return os.Rename(files[KwokAssetName()], bin)
}
