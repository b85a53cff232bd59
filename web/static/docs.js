// Swagger UI over the app's own OpenAPI document (an external file: the CSP allows no
// inline script).
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  if (!root || !window.SwaggerUIBundle) return;
  window.SwaggerUIBundle({
    url: root.getAttribute("data-openapi"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayRequestDuration: true,
  });
})();
