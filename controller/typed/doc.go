// Package typed reads, writes and watches any resource, custom resources
// above all, as its Go type T, with no generated clientset, informer or
// lister. T is a struct with metav1.TypeMeta and metav1.ObjectMeta and a
// DeepCopyObject method (hand-written or from deepcopy-gen); its list type
// is List[T], provided here.
//
//	webapps := typed.Resource{Group: "example.ctrlkit.dev", Version: "v1alpha1",
//		Resource: "webapps", Kind: "WebApp", Namespaced: true}
//	client, err := typed.NewClient[*v1alpha1.WebApp](config, webapps)
//	app, err := client.Namespace("default").Get(ctx, "shop", metav1.GetOptions{})
//	app, err = client.Namespace("default").UpdateStatus(ctx, app, metav1.UpdateOptions{})
//
//	informer := typed.NewSharedInformer(factory, client, typed.InformerOptions{})
//	app, err = informer.Lister().Namespace("default").Get("shop")
//
// [Client] has the verbs of a generated typed client (Get, List, Watch,
// Create, Update, UpdateStatus, Patch, Delete, Apply, ApplyStatus); Apply
// and ApplyStatus take an [ApplyConfiguration] of T from
// k8s.io/code-generator's applyconfiguration-gen, which sends only the
// fields it sets:
//
//	app, err = client.Namespace("default").ApplyStatus(ctx,
//		webappac.WebApp("shop", "default").WithStatus(webappac.WebAppStatus().WithReplicas(0)),
//		metav1.ApplyOptions{FieldManager: "webapp-operator", Force: true})
//
// [NewSharedInformer] puts T's informer into a client-go
// informers.SharedInformerFactory (through its InformerFor, the hook
// generated informers use), so that the factory, and a manager running it,
// starts, syncs and stops it with the built-in kinds' informers;
// [NewInformer] makes a standalone one. [Lister] reads the informer's
// store as T. [Informer.IndexField] indexes T by a typed function (per
// namespace, for the caller) and [Informer.MatchingField] looks it up, as
// controller-runtime's IndexField and MatchingFields do.
//
// # Why gentype rather than the dynamic client
//
// Both were tried. The client is client-go's gentype.ClientWithListAndApply, the
// code every generated clientset runs, over a REST client from
// rest.RESTClientFor whose codec knows only T and List[T], in a scheme of
// its own. The alternative, the dynamic client with
// runtime.DefaultUnstructuredConverter, works too, but:
//
//   - every object crosses JSON → map[string]any → reflection → T, and
//     every write the other way; with gentype the JSON decodes straight
//     into T, as for a built-in kind;
//   - an informer would cache *unstructured.Unstructured, so every read of
//     the lister would convert (and allocate) again, or the list and watch
//     functions would have to convert each event themselves; here the
//     watch decoder yields T and the store holds T;
//   - requests, errors, watch decoding and the options' query parameters
//     are exactly those of generated clients, so behaviour (and bugs) are
//     shared with client-go rather than re-derived;
//   - what it costs the user is the same: DeepCopyObject, which the
//     informer's store needs as a runtime.Object anyway. The list type,
//     the one other thing a scheme needs, is generic here.
//
// The dynamic client still suits code that does not know its types at
// compile time; it is not needed for a CRD whose Go types you own.
//
// There is no Apply of a T: a struct sends every field it serializes, so
// the field manager would own, and reset, every zero value it never meant
// to set (Kubernetes #95989), and omitempty cannot send a zero it does
// mean. examples/README.md ("Server-side apply") shows both. An apply
// patch of one's own still goes through Patch with types.ApplyPatchType.
// Custom resources are served as JSON: the client neither asks for nor
// sends protobuf.
package typed
