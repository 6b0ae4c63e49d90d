-- AI surface: hosted document parsers as extraction engines (issue 14).
-- Their base URLs and keys are the server's configuration (UNSTRUCTURED_API_*,
-- DOCLING_API_*, LLAMAPARSE_API_*); an engine that is not configured or fails
-- hands the file to the local chain (text layer, then OCR), and the source says so.
insert into ai.extraction_methods (name, label, fallback_position, position) values
  ('unstructured', 'Unstructured API', null, 5),
  ('docling', 'Docling Serve', null, 6),
  ('llamaparse', 'LlamaParse', null, 7)
on conflict (name) do nothing;
