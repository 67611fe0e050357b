// Renders the gateway's own OpenAPI document with the vendored Swagger UI. Nothing is loaded
// from another origin: the spec comes from /openapi.yaml, the validator badge is off, and
// "Try it out" calls this same gateway.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.yaml",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    withCredentials: false,
    defaultModelsExpandDepth: 0,
    docExpansion: "none",
    filter: true,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "BaseLayout"
  });
  // Swagger UI's server picker (a <select>) and operation filter (an <input> with only a
  // placeholder) have no label: name them for screen readers (WCAG 4.1.2, axe's `label`
  // rule) whenever they are drawn.
  const nameControls = function () {
    const servers = document.getElementById("servers");
    if (servers && !servers.hasAttribute("aria-label")) servers.setAttribute("aria-label", "Server");
    document.querySelectorAll("input.operation-filter-input:not([aria-label])").forEach(function (filter) {
      filter.setAttribute("aria-label", "Filter operations by tag");
    });
  };
  new MutationObserver(nameControls).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
  nameControls();
});
