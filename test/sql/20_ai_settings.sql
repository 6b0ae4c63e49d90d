-- The settings registry: 92 keys in seven categories; one validation rule per
-- type and range; secrets encrypted with the server's key and only masked
-- when read; all-or-nothing writes; users read, only the service role writes.
begin;
select plan(27);

select is((select count(*)::int from ai.settings_registry), 92, 'the registry holds 92 keys');
select results_eq(
  $$ select category, count(*)::int from ai.settings_registry group by category order by min((select position from ai.setting_categories c where c.name = category)) $$,
  $$ values ('copilot', 8), ('agents', 3), ('tools', 12), ('knowledge-indexing', 41), ('knowledge-retrieval', 19), ('compaction', 5), ('sources', 4) $$,
  'in the seven categories of the spec, with their counts');
select is((select count(*)::int from ai.settings_registry where ai.setting_error(key, default_value) is not null and type <> 'secret'), 0,
  'every default passes its own validation');

-- one rule per type
select is(ai.setting_error('COPILOT_MAX_STEPS', '12'), null, 'integer: a whole number in range');
select is(ai.setting_error('COPILOT_MAX_STEPS', '1.5'), 'must be a whole number', 'integer: not a fraction');
select is(ai.setting_error('COPILOT_MAX_STEPS', '0'), 'must be at least 1', 'integer: the minimum');
select is(ai.setting_error('COPILOT_MAX_STEPS', '101'), 'must be at most 100', 'integer: the maximum');
select is(ai.setting_error('COPILOT_TEMPERATURE', '1.25'), null, 'number: a decimal in range');
select is(ai.setting_error('COPILOT_TEMPERATURE', 'warm'), 'must be a number', 'number: not a word');
select is(ai.setting_error('COPILOT_TEMPERATURE', '-0.1'), 'must be at least 0', 'number: the minimum');
select is(ai.setting_error('BM25_AUTO_INDEXING', 'false'), null, 'boolean: true or false');
select is(ai.setting_error('BM25_AUTO_INDEXING', '1'), 'must be true or false', 'boolean: nothing else');
select is(ai.setting_error('DEFAULT_IMAGE_DELIVERY', 'base64'), null, 'enum: one of its options');
select is(ai.setting_error('DEFAULT_IMAGE_DELIVERY', 'fax'), 'must be one of url, base64, none', 'enum: nothing else');
select is(ai.setting_error('copilot_model', 'gemini/gemini-2.5-pro'), null, 'model: a routable model id');
select isnt(ai.setting_error('copilot_model', 'gemini/'), null, 'model: not an empty model after a prefix');
select is(ai.setting_error('CRAWL_API_BASE', 'https://crawl.example.com'), null, 'string: matches its pattern');
select isnt(ai.setting_error('CRAWL_API_BASE', 'ftp://x'), null, 'string: refused when it does not');
select is(ai.setting_error('NOPE', 'x'), 'unknown setting', 'an unknown key');

-- secrets and writes
select tests.authenticate_as_service_role();
select results_eq($$ select * from ai.put_settings('{"SEARCH_API_KEY": "srch-secret-123456789", "KB_DEFAULT_TOP_K": "8"}', repeat('k', 40)) order by 1 $$,
  $$ values ('KB_DEFAULT_TOP_K'), ('SEARCH_API_KEY') $$, 'the service role writes settings');
select is((select value from ai.setting_value('SEARCH_API_KEY', repeat('k', 40))), 'srch-secret-123456789', 'a secret decrypts with the key it was written with');
select throws_ok($$ select * from ai.setting_value('SEARCH_API_KEY', repeat('x', 40)) $$, '39000', null, 'and with no other key');
select is((select override from ai.settings_list() where key = 'SEARCH_API_KEY'), 'src...6789', 'it is listed masked');
select throws_ok($$ select * from ai.put_settings('{"KB_DEFAULT_TOP_K": "9", "COPILOT_TEMPERATURE": "5"}', repeat('k', 40)) $$, 'PT400', 'Invalid settings',
  'one bad value refuses the whole write');
select is((select value from ai.settings_list() where key = 'KB_DEFAULT_TOP_K'), '8', 'and the good value in it was not written');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select count(*)::int from ai.settings_list()), 92, 'a signed-in user reads every setting');
select throws_ok($$ select * from ai.put_settings('{"KB_DEFAULT_TOP_K": "3"}', 'k') $$, '42501', null, 'but cannot write them');

select * from finish();
rollback;
