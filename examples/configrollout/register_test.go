package configrollout_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/examples/configrollout"
)

func deploymentUsing(name string, optIn bool, configMap, secret string) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app",
				Env: []corev1.EnvVar{{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: "password"}}}},
			}},
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}}}}}},
		}}},
	}
	if optIn {
		d.Annotations = map[string]string{configrollout.EnabledAnnotation: "true"}
	}
	return d
}

// cluster is the controller running on a fake cluster.
type cluster struct {
	*controllertest.Env
	events chan string
}

func startCluster(t *testing.T) *cluster {
	env := controllertest.New(t,
		deploymentUsing("app", true, "app-config", "db"),
		deploymentUsing("bystander", false, "app-config", "db"),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app-config"}, Data: map[string]string{"level": "info"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Data: map[string][]byte{"password": []byte("one")}},
	)
	recorder := record.NewFakeRecorder(100)
	c, err := configrollout.New(env.Client, env.Informers, recorder, controller.Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	env.Start(c)
	return &cluster{Env: env, events: recorder.Events}
}

func (c *cluster) deployment(t *testing.T, name string) *appsv1.Deployment {
	t.Helper()
	d, err := c.Client.AppsV1().Deployments("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (c *cluster) drainEvents() []string {
	var events []string
	for {
		select {
		case e := <-c.events:
			events = append(events, e)
		default:
			return events
		}
	}
}

func (c *cluster) updateConfigMap(t *testing.T, change func(*corev1.ConfigMap)) {
	t.Helper()
	ctx := context.Background()
	cm, err := c.Client.CoreV1().ConfigMaps("ns").Get(ctx, "app-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	change(cm)
	if _, err := c.Client.CoreV1().ConfigMaps("ns").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestControllerAdoptsThenRollsOnDataChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)

		app := c.deployment(t, "app")
		adopted := app.Annotations[configrollout.ObservedHashAnnotation]
		if adopted == "" || app.Spec.Template.Annotations[configrollout.HashAnnotation] != "" {
			t.Fatalf("after start: annotations %v, template %v; want an observed hash and no rollout",
				app.Annotations, app.Spec.Template.Annotations)
		}
		if b := c.deployment(t, "bystander"); len(b.Annotations) != 0 {
			t.Errorf("a Deployment that did not opt in was annotated: %v", b.Annotations)
		}
		c.drainEvents()

		// Metadata-only changes pass the predicate by: nothing to do.
		c.ClearActions()
		c.updateConfigMap(t, func(cm *corev1.ConfigMap) { cm.Labels = map[string]string{"team": "a"} })
		c.Settle()
		if w := deploymentWrites(c.WriteActions()); len(w) != 0 {
			t.Errorf("a label change on the ConfigMap wrote %v", w)
		}

		// A data change rolls exactly the opted-in user.
		c.updateConfigMap(t, func(cm *corev1.ConfigMap) { cm.Data["level"] = "debug" })
		c.Settle()
		app = c.deployment(t, "app")
		rolled := app.Spec.Template.Annotations[configrollout.HashAnnotation]
		if rolled == "" || rolled == adopted || app.Annotations[configrollout.ObservedHashAnnotation] != rolled {
			t.Errorf("after a data change: template hash %q, observed %q, adopted %q; want a new hash in both",
				rolled, app.Annotations[configrollout.ObservedHashAnnotation], adopted)
		}
		if b := c.deployment(t, "bystander"); len(b.Annotations) != 0 || len(b.Spec.Template.Annotations) != 0 {
			t.Errorf("the bystander was touched: %v / %v", b.Annotations, b.Spec.Template.Annotations)
		}
		if w := deploymentWrites(c.WriteActions()); len(w) != 1 {
			t.Errorf("deployment writes = %d, want exactly 1 (the rollout; its own update must not loop)", len(w))
		}
		events := c.drainEvents()
		if len(events) != 1 || !strings.HasPrefix(events[0], "Normal ConfigChanged") {
			t.Errorf("events = %q, want one ConfigChanged", events)
		}
	})
}

func TestControllerWaitsForDeletedSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		before := c.deployment(t, "app")
		c.drainEvents()
		c.ClearActions()

		ctx := context.Background()
		secret, err := c.Client.CoreV1().Secrets("ns").Get(ctx, "db", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Client.CoreV1().Secrets("ns").Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		c.Settle()
		if w := deploymentWrites(c.WriteActions()); len(w) != 0 {
			t.Errorf("deleting a required Secret wrote %v; pods without it could not start", w)
		}
		if events := c.drainEvents(); len(events) != 1 || events[0] != "Warning ConfigNotFound Not rolling out: secret/db not found" {
			t.Errorf("events = %q, want one ConfigNotFound", events)
		}

		// Recreated with the same data: the hash is what the pods run with.
		secret.ResourceVersion = ""
		if _, err := c.Client.CoreV1().Secrets("ns").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.Settle()
		if w := deploymentWrites(c.WriteActions()); len(w) != 0 {
			t.Errorf("recreating the Secret unchanged wrote %v", w)
		}
		if after := c.deployment(t, "app"); after.ResourceVersion != before.ResourceVersion {
			t.Errorf("the Deployment changed: resourceVersion %s -> %s", before.ResourceVersion, after.ResourceVersion)
		}
	})
}

func TestControllerFollowsOptIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t)
		ctx := context.Background()
		b := c.deployment(t, "bystander")
		b.Annotations = map[string]string{configrollout.EnabledAnnotation: "true"}
		if _, err := c.Client.AppsV1().Deployments("ns").Update(ctx, b, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.Settle()
		if got, want := c.deployment(t, "bystander").Annotations[configrollout.ObservedHashAnnotation],
			c.deployment(t, "app").Annotations[configrollout.ObservedHashAnnotation]; got == "" || got != want {
			t.Fatalf("opted-in bystander's observed hash = %q, want %q (same configuration as app)", got, want)
		}

		// Now indexed: a configuration change rolls it too.
		c.updateConfigMap(t, func(cm *corev1.ConfigMap) { cm.Data["level"] = "warn" })
		c.Settle()
		if got := c.deployment(t, "bystander").Spec.Template.Annotations[configrollout.HashAnnotation]; got == "" {
			t.Error("the newly opted-in Deployment did not roll on a configuration change")
		}
	})
}

// deploymentWrites keeps the writes to Deployments: the recorder's events
// go elsewhere, and the test's own writes are to ConfigMaps and Secrets.
func deploymentWrites(actions []clienttesting.Action) []clienttesting.Action {
	var writes []clienttesting.Action
	for _, a := range actions {
		if a.GetResource().Resource == "deployments" {
			writes = append(writes, a)
		}
	}
	return writes
}
