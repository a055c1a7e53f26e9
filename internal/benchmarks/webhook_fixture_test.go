package benchmarks

// The validating webhook both servers run in webhook_bench_test.go: one
// check of a Deployment, and the AdmissionReviews an API server sends it.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
)

// maxDeploymentReplicas is the policy's bound on spec.replicas.
const maxDeploymentReplicas = 50

// validateDeployment is the policy: a bounded replica count, a selector
// that selects the template and does not change, and containers with a
// pinned image, a readiness probe, and limits no lower than their requests.
func validateDeployment(oldObj, d *appsv1.Deployment) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if r := d.Spec.Replicas; r != nil && *r > maxDeploymentReplicas {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *r, fmt.Sprintf("must be at most %d", maxDeploymentReplicas)))
	}
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err != nil {
		errs = append(errs, field.Invalid(spec.Child("selector"), d.Spec.Selector, err.Error()))
	} else if sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(spec.Child("selector"), d.Spec.Selector, "must select the template's labels"))
	}
	if oldObj != nil && !apiequality.Semantic.DeepEqual(oldObj.Spec.Selector, d.Spec.Selector) {
		errs = append(errs, field.Forbidden(spec.Child("selector"), "is immutable"))
	}
	containers := spec.Child("template", "spec", "containers")
	for i, c := range d.Spec.Template.Spec.Containers {
		p := containers.Index(i)
		if !strings.Contains(c.Image, "@") && (!strings.Contains(c.Image, ":") || strings.HasSuffix(c.Image, ":latest")) {
			errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must name a tag other than latest, or a digest"))
		}
		if c.ReadinessProbe == nil {
			errs = append(errs, field.Required(p.Child("readinessProbe"), ""))
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			limit, ok := c.Resources.Limits[name]
			if !ok {
				errs = append(errs, field.Required(p.Child("resources", "limits").Key(string(name)), ""))
				continue
			}
			if req, ok := c.Resources.Requests[name]; ok && req.Cmp(limit) > 0 {
				errs = append(errs, field.Invalid(p.Child("resources", "requests").Key(string(name)), req.String(), "must not exceed the limit"))
			}
		}
	}
	return errs
}

// ctrlkitDeploymentValidator is the policy as ctrlkit's typed validator.
var ctrlkitDeploymentValidator = admission.ValidatorFuncs[appsv1.Deployment]{
	Create: func(_ context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
		return nil, validateDeployment(nil, d).ToAggregate()
	},
	Update: func(_ context.Context, oldObj, d *appsv1.Deployment) (admission.Warnings, error) {
		return nil, validateDeployment(oldObj, d).ToAggregate()
	},
}

// crDeploymentValidator is the policy as controller-runtime's typed
// validator (admission.Validator[*appsv1.Deployment]).
type crDeploymentValidator struct{}

func (crDeploymentValidator) ValidateCreate(_ context.Context, d *appsv1.Deployment) (cradmission.Warnings, error) {
	return nil, validateDeployment(nil, d).ToAggregate()
}

func (crDeploymentValidator) ValidateUpdate(_ context.Context, oldObj, d *appsv1.Deployment) (cradmission.Warnings, error) {
	return nil, validateDeployment(oldObj, d).ToAggregate()
}

func (crDeploymentValidator) ValidateDelete(context.Context, *appsv1.Deployment) (cradmission.Warnings, error) {
	return nil, nil
}

// benchDeployment is a Deployment as the API server sends it to a webhook:
// a web front end with a sidecar, probes, resources, volumes, and the
// managedFields of kubectl's server-side apply.
func benchDeployment(image string) *appsv1.Deployment {
	podLabels := map[string]string{"app.kubernetes.io/name": "storefront", "app.kubernetes.io/component": "web", "app.kubernetes.io/part-of": "shop"}
	res := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: delay, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
		}
	}
	env := []corev1.EnvVar{
		{Name: "LOG_LEVEL", Value: "info"},
		{Name: "HTTP_PORT", Value: "8080"},
		{Name: "CART_SERVICE_ADDR", Value: "cart.shop.svc.cluster.local:7070"},
		{Name: "CATALOG_SERVICE_ADDR", Value: "catalog.shop.svc.cluster.local:3550"},
		{Name: "CURRENCY_SERVICE_ADDR", Value: "currency.shop.svc.cluster.local:7000"},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
		{Name: "SESSION_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "storefront-session"}, Key: "secret"}}},
	}
	created := metav1.Date(2026, 11, 30, 9, 12, 44, 0, metav1.Now().Location())
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "storefront", Namespace: "shop", UID: "6f1c2a57-3b8e-4d0a-9c61-2e7f4b9d8a13",
			ResourceVersion: "4821733", Generation: 7, CreationTimestamp: created, Labels: podLabels,
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "7", "shop.example.com/owner": "team-web"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", Time: &created, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{"f:shop.example.com/owner":{}},"f:labels":{"f:app.kubernetes.io/component":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app.kubernetes.io/component":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"proxy\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":8443,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{}}},"f:readinessProbe":{"f:httpGet":{"f:path":{},"f:port":{}}},"f:resources":{"f:limits":{"f:cpu":{},"f:memory":{}},"f:requests":{"f:cpu":{},"f:memory":{}}}},"k:{\"name\":\"web\"}":{".":{},"f:env":{"k:{\"name\":\"CART_SERVICE_ADDR\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"HTTP_PORT\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:livenessProbe":{"f:httpGet":{"f:path":{},"f:port":{}}},"f:name":{},"f:ports":{"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{}}},"f:readinessProbe":{"f:httpGet":{"f:path":{},"f:port":{}}},"f:resources":{"f:limits":{"f:cpu":{},"f:memory":{}},"f:requests":{"f:cpu":{},"f:memory":{}}},"f:volumeMounts":{"k:{\"mountPath\":\"/etc/storefront\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},"f:serviceAccountName":{},"f:volumes":{"k:{\"name\":\"config\"}":{".":{},"f:configMap":{"f:name":{}},"f:name":{}}}}}}}`)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: &created, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}`)}},
			},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "storefront", "app.kubernetes.io/component": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName: "storefront",
					Containers: []corev1.Container{{
						Name: "web", Image: image,
						Ports:                  []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
						Env:                    env,
						Resources:              corev1.ResourceRequirements{Requests: res("250m", "256Mi"), Limits: res("1", "512Mi")},
						VolumeMounts:           []corev1.VolumeMount{{Name: "config", MountPath: "/etc/storefront", ReadOnly: true}},
						LivenessProbe:          probe("/healthz", 10),
						ReadinessProbe:         probe("/readyz", 2),
						TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
						ImagePullPolicy: corev1.PullIfNotPresent,
						SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					}, {
						Name: "proxy", Image: "registry.example.com/shop/tls-proxy:2.4.1",
						Ports:                  []corev1.ContainerPort{{Name: "https", ContainerPort: 8443, Protocol: corev1.ProtocolTCP}},
						Resources:              corev1.ResourceRequirements{Requests: res("50m", "64Mi"), Limits: res("200m", "128Mi")},
						ReadinessProbe:         probe("/ready", 1),
						TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
						ImagePullPolicy: corev1.PullIfNotPresent,
					}},
					Volumes:                       []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "storefront-config"}, DefaultMode: ptr.To[int32](0o644)}}}},
					RestartPolicy:                 corev1.RestartPolicyAlways,
					TerminationGracePeriodSeconds: ptr.To[int64](30),
					DNSPolicy:                     corev1.DNSClusterFirst,
					SchedulerName:                 corev1.DefaultSchedulerName,
					SecurityContext:               &corev1.PodSecurityContext{FSGroup: ptr.To[int64](2000)},
				},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromString("25%")), MaxSurge: ptr.To(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: 7, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: created, LastTransitionTime: created, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: created, LastTransitionTime: created, Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "storefront-7d9c6b5f4" has successfully progressed.`},
			},
		},
	}
}

// benchReview returns the body of an AdmissionReview for d: a CREATE when
// oldObj is nil, else an UPDATE from oldObj, as kube-apiserver sends them.
func benchReview(uid int, oldObj, d *appsv1.Deployment) []byte {
	raw := func(o *appsv1.Deployment) runtime.RawExtension {
		b, err := json.Marshal(o)
		if err != nil {
			panic(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	gvk := metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gvr := metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	req := &admissionv1.AdmissionRequest{
		UID: types.UID(fmt.Sprintf("0b5c7d1e-8f2a-4c3b-9d6e-%012x", uid)), Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
		Name: d.Name, Namespace: d.Namespace, Operation: admissionv1.Create, Object: raw(d), DryRun: ptr.To(false),
		UserInfo: authenticationv1.UserInfo{Username: "system:serviceaccount:ci:deployer", UID: "c1d4e0a2-5b7f-4e8d-a3c6-91f2b8e7d054",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"}},
		Options: runtime.RawExtension{Raw: []byte(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl"}`)},
	}
	if oldObj != nil {
		req.Operation = admissionv1.Update
		req.OldObject = raw(oldObj)
		req.Options.Raw = []byte(`{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl"}`)
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
	if err != nil {
		panic(err)
	}
	return body
}

// benchReviews returns n review bodies with distinct UIDs, alternately a
// CREATE and an UPDATE (a new image tag), all of which the policy allows.
func benchReviews(n int) [][]byte {
	oldObj, newObj := benchDeployment("registry.example.com/shop/storefront:1.31.0"), benchDeployment("registry.example.com/shop/storefront:1.32.0")
	newObj.Generation++
	bodies := make([][]byte, n)
	for i := range bodies {
		if i%2 == 0 {
			bodies[i] = benchReview(i, nil, newObj)
		} else {
			bodies[i] = benchReview(i, oldObj, newObj)
		}
	}
	return bodies
}
