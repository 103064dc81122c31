//! Chart drawing (plotters), generic over the backend: canvas in the app, SVG in native tests.
