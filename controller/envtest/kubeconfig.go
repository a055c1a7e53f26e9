package envtest

import (
	"encoding/base64"
	"fmt"
	"os"
)

// contextName names the cluster, user and context in the kubeconfig.
const contextName = "ctrlkit-local"

// writeKubeconfig writes a kubeconfig for the admin user. It is written by
// hand rather than with clientcmd, whose flag dependencies the root module
// does not otherwise need.
func writeKubeconfig(path, server string, keys *keyMaterial) error {
	const format = `apiVersion: v1
kind: Config
clusters:
- name: %[1]s
  cluster:
    server: %[2]s
    certificate-authority-data: %[3]s
users:
- name: %[1]s
  user:
    token: %[4]s
contexts:
- name: %[1]s
  context:
    cluster: %[1]s
    user: %[1]s
    namespace: default
current-context: %[1]s
`
	data := fmt.Sprintf(format, contextName, server, base64.StdEncoding.EncodeToString(keys.caPEM), keys.adminToken)
	return os.WriteFile(path, []byte(data), 0o600)
}
