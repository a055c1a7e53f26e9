package upstreamcheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ctrlkit/ctrlkit/deployment"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"
)

// collisionCounts covers "no collision yet" (nil) and the values whose byte
// encoding matters: zero, small, the largest int32, and a negative one (never
// written by the controller, but a hash must not depend on that).
var collisionCounts = []*int32{nil, ptr.To[int32](0), ptr.To[int32](1), ptr.To[int32](7), ptr.To[int32](256), ptr.To[int32](math.MaxInt32), ptr.To[int32](-1)}

// TestPodTemplateHashMatchesUpstream compares deployment.PodTemplateHash with
// kube-controller-manager's controller.ComputeHash on realistic templates
// built field by field and on templates with every field filled at random.
func TestPodTemplateHashMatchesUpstream(t *testing.T) {
	var templates []*corev1.PodTemplateSpec
	templates = append(templates, &corev1.PodTemplateSpec{}) // the empty template
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		templates = append(templates, realisticTemplate(r, i))
	}
	filler := randfill.NewWithSeed(42).NilChance(0.3).NumElements(0, 3).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse(fmt.Sprintf("%d%s", c.Intn(5000), []string{"", "m", "Mi", "Gi", "k"}[c.Intn(5)]))
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31n(65536))
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
	)
	for range 600 {
		var tpl corev1.PodTemplateSpec
		filler.Fill(&tpl)
		templates = append(templates, &tpl)
	}

	checked := 0
	seen := map[string]int{}
	for i, tpl := range templates {
		for _, cc := range collisionCounts {
			want := controller.ComputeHash(tpl, cc)
			got := deployment.PodTemplateHash(tpl, cc)
			if got != want {
				t.Errorf("template %d, collisionCount %v: PodTemplateHash = %q, upstream ComputeHash = %q", i, deref(cc), got, want)
			}
			seen[want]++
			checked++
		}
	}
	// A sanity check on the inputs: varied templates must give varied hashes,
	// or the comparison above proves little.
	if len(seen) < checked*9/10 {
		t.Errorf("only %d distinct hashes over %d checks: the generated templates are too alike", len(seen), checked)
	}
	t.Logf("checked %d (template, collisionCount) pairs over %d templates; %d distinct hashes", checked, len(templates), len(seen))
}

func deref(p *int32) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// realisticTemplate builds the kind of template users write, varying one
// more aspect per index so that every field family below is exercised.
func realisticTemplate(r *rand.Rand, i int) *corev1.PodTemplateSpec {
	app := fmt.Sprintf("app-%d", r.IntN(50))
	tpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels: map[string]string{"app": app, "tier": []string{"web", "db", "cache"}[r.IntN(3)]},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			SchedulerName:                 "default-scheduler",
			TerminationGracePeriodSeconds: ptr.To[int64](int64(r.IntN(120))),
			SecurityContext:               &corev1.PodSecurityContext{},
		},
	}
	if i%3 == 0 {
		tpl.Annotations = map[string]string{"checksum/config": fmt.Sprintf("%x", r.Uint64()), "prometheus.io/scrape": "true"}
	}
	if i%5 == 0 {
		tpl.Labels["pod-template-hash"] = fmt.Sprintf("%x", r.Uint32())
	}
	for c := range 1 + r.IntN(3) {
		tpl.Spec.Containers = append(tpl.Spec.Containers, realisticContainer(r, i, c))
	}
	if i%4 == 1 {
		tpl.Spec.InitContainers = []corev1.Container{{
			Name: "init", Image: "busybox:1.36", Command: []string{"sh", "-c", "until nslookup db; do sleep 2; done"},
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			ImagePullPolicy: corev1.PullIfNotPresent,
		}}
	}
	if i%2 == 0 {
		tpl.Spec.Volumes = []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config"}, DefaultMode: ptr.To[int32](0o644)}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse(fmt.Sprintf("%dMi", 1+r.IntN(512))))}}},
		}
	}
	if i%7 == 0 {
		tpl.Spec.Volumes = append(tpl.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + app, ReadOnly: r.IntN(2) == 0}}})
	}
	if i%6 == 0 {
		tpl.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux", "zone": fmt.Sprintf("z%d", r.IntN(3))}
		tpl.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: app, Effect: corev1.TaintEffectNoSchedule}}
	}
	if i%8 == 0 {
		tpl.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: int32(1 + r.IntN(100)),
				PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
					TopologyKey:   "kubernetes.io/hostname",
				},
			}},
		}}
	}
	if i%9 == 0 {
		tpl.Spec.ServiceAccountName = app
		tpl.Spec.AutomountServiceAccountToken = ptr.To(false)
		tpl.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	}
	if i%10 == 0 {
		tpl.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{app}}}},
		}}
	}
	return tpl
}

func realisticContainer(r *rand.Rand, i, c int) corev1.Container {
	ctr := corev1.Container{
		Name:                     fmt.Sprintf("c%d", c),
		Image:                    fmt.Sprintf("registry.example/app:v%d.%d", r.IntN(5), r.IntN(20)),
		ImagePullPolicy:          []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent}[r.IntN(2)],
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		Ports:                    []corev1.ContainerPort{{Name: "http", ContainerPort: int32(8000 + r.IntN(1000)), Protocol: corev1.ProtocolTCP}},
	}
	if r.IntN(2) == 0 {
		ctr.Args = []string{"--port", fmt.Sprint(ctr.Ports[0].ContainerPort), fmt.Sprintf("--workers=%d", 1+r.IntN(8))}
	}
	for e := range r.IntN(4) {
		ctr.Env = append(ctr.Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", e), Value: fmt.Sprintf("value-%d", r.IntN(1000))})
	}
	if i%3 == 1 {
		ctr.Env = append(ctr.Env,
			corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
			corev1.EnvVar{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password", Optional: ptr.To(true)}}})
		ctr.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "env"}}}}
	}
	if r.IntN(3) > 0 {
		ctr.Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(fmt.Sprintf("%dm", 50+r.IntN(950))),
				corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dMi", 64+r.IntN(960))),
			},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dGi", 1+r.IntN(4)))},
		}
	}
	if i%2 == 1 {
		ctr.ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			PeriodSeconds: int32(1 + r.IntN(30)), TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
		}
		ctr.LivenessProbe = &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(ctr.Ports[0].ContainerPort)}},
			InitialDelaySeconds: int32(r.IntN(60)), PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
		}
	}
	if i%4 == 2 {
		ctr.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}}}
		ctr.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: int64(1 + r.IntN(10))}}}
	}
	if i%2 == 0 {
		ctr.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", ReadOnly: true}, {Name: "scratch", MountPath: "/tmp"}}
	}
	if i%5 == 3 {
		ctr.SecurityContext = &corev1.SecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](int64(1000 + r.IntN(1000))),
			ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		}
	}
	return ctr
}
