// Client environment script for a standalone renderer (Electron, or a static host). The IES server
// replaces it with one made from its own configuration (GET /env.js). Empty values take the
// defaults: the API at <origin>/api and the identity provider at <origin>.
window.__IES_ENV__ = {
  API_URL: '',
  AUTH_URL: '',
  AUTH_REALM: 'ies',
  AUTH_CLIENT_ID: 'ies-app',
  USE_RUNTIME_CATALOG: true,
}
