// Stylesheets imported for their effect (Vite bundles them into a file of their own).
declare module '*.css';
