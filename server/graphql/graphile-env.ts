// Grafast reads GRAPHILE_ENV once, when it loads, and prints a multi-line
// banner when it is unset. It follows our own configuration instead:
// development only with NODE_ENV=development. Imported before postgraphile.
process.env.GRAPHILE_ENV ??= process.env.NODE_ENV === 'development' ? 'development' : 'production';
