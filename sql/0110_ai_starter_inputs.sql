-- The starter block's inputs (issue 48): a workflow may say what its run
-- takes, so a form can ask for it (the Studio's run panel does).
--   1. ai.block_types   starter's config_schema gains `inputs`: a list of
--                       {name, type (string, number, boolean or json),
--                       description, required}; its example shows one.
-- The run itself is unchanged: the starter's output is still the run's
-- variables as given.

-- 1 ---------------------------------------------------------------------------
update ai.block_types
   set config_schema = '{"type": "object", "properties": {"inputs": {"type": "array", "description": "What a run takes: each a variable the run form asks for", "items": {"type": "object", "properties": {"name": {"type": "string"}, "type": {"type": "string", "enum": ["string", "number", "boolean", "json"]}, "description": {"type": "string"}, "required": {"type": "boolean"}}, "required": ["name"]}}}}',
       examples = '[{"inputs": [{"name": "question", "type": "string", "required": true}]}]'
 where name = 'starter';
