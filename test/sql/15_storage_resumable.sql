-- Resumable uploads: authorised at the start as the caller, continued and
-- finished only by their creator, recorded as an object at the end; expired
-- ones and bytes no row refers to are named for the sweepers.
begin;
select plan(15);

insert into auth.users (id, aud, role, email) values
  ('11111111-1111-4111-8111-111111111111', 'authenticated', 'authenticated', 'ann@example.com'),
  ('22222222-2222-4222-8222-222222222222', 'authenticated', 'authenticated', 'bob@example.com');
insert into storage.buckets (id, name, allowed_mime_types, file_size_limit) values ('videos', 'videos', array['video/*'], 1000000);
create policy own_folder_read on storage.objects for select to authenticated
  using (bucket_id = 'videos' and (storage.foldername(name))[1] = auth.uid()::text);
create policy own_folder_write on storage.objects for insert to authenticated
  with check (bucket_id = 'videos' and (storage.foldername(name))[1] = auth.uid()::text);

select tests.authenticate_as('11111111-1111-4111-8111-111111111111');
select is((select owner_id from storage.begin_resumable('aaaaaaaa-0000-4000-8000-000000000001', 'videos',
  '11111111-1111-4111-8111-111111111111/clip.mp4', false, 5000, 'video/mp4', 'max-age=3600', null, 10000000, 3600)),
  '11111111-1111-4111-8111-111111111111', 'a user starts an upload into their own folder, owned by them');
select throws_ok($$select storage.begin_resumable('aaaaaaaa-0000-4000-8000-000000000002', 'videos',
  '22222222-2222-4222-8222-222222222222/clip.mp4', false, 5000, 'video/mp4', 'max-age=3600', null, 10000000, 3600)$$,
  '42501', null, 'but not into another user''s folder');
select throws_ok($$select storage.begin_resumable('aaaaaaaa-0000-4000-8000-000000000003', 'videos',
  '11111111-1111-4111-8111-111111111111/big.mp4', false, 2000000, 'video/mp4', 'max-age=3600', null, 10000000, 3600)$$,
  'PT413', 'The object exceeded the maximum allowed size', 'the bucket''s size limit holds against the announced length');
select throws_ok($$select storage.begin_resumable('aaaaaaaa-0000-4000-8000-000000000004', 'videos',
  '11111111-1111-4111-8111-111111111111/x.mp4', false, 500, 'video/mp4', 'max-age=3600', null, 100, 3600)$$,
  'PT413', 'The object exceeded the maximum allowed size', 'and so does the server''s resumable ceiling');
select throws_ok($$select storage.begin_resumable('aaaaaaaa-0000-4000-8000-000000000005', 'videos',
  '11111111-1111-4111-8111-111111111111/x.html', false, 500, 'text/html', 'max-age=3600', null, 10000000, 3600)$$,
  'PT415', 'mime type text/html is not supported', 'and the bucket''s allow-list');
select is((select count(*)::int from storage.resumable_uploads), 1, 'refused starts record nothing');

select tests.authenticate_as('22222222-2222-4222-8222-222222222222');
select throws_ok($$select storage.require_resumable('aaaaaaaa-0000-4000-8000-000000000001')$$, 'PT404', 'Upload not found',
  'another user cannot continue it');
select throws_ok($$select * from storage.finish_resumable('aaaaaaaa-0000-4000-8000-000000000001', '{"size": 5000}', 'video/mp4')$$,
  'PT404', 'Upload not found', 'nor finish it');

select tests.authenticate_as('11111111-1111-4111-8111-111111111111');
select lives_ok($$select storage.require_resumable('aaaaaaaa-0000-4000-8000-000000000001')$$, 'the creator continues it');
select throws_ok($$select * from storage.finish_resumable('aaaaaaaa-0000-4000-8000-000000000001', '{"size": 4000}', 'video/mp4')$$,
  'PT400', 'The upload is not complete', 'an upload short of its length is not an object');
select lives_ok($$select storage.finish_resumable('aaaaaaaa-0000-4000-8000-000000000001', '{"size": 5000, "eTag": "\"e\""}', null)$$,
  'the creator finishes a complete upload');
select is((select version || ' ' || (metadata ->> 'mimetype') from storage.objects where name = '11111111-1111-4111-8111-111111111111/clip.mp4'),
  'aaaaaaaa-0000-4000-8000-000000000001 video/mp4', 'recorded as an object under the upload''s id as byte version, with the type announced at the start');
select is((select count(*)::int from storage.resumable_uploads), 0, 'and ends the upload');

select tests.clear_authentication();
insert into storage.resumable_uploads (id, bucket_id, name, upload_length, content_type, cache_control, expires_at)
values ('aaaaaaaa-0000-4000-8000-000000000009', 'videos', 'old.mp4', 10, 'video/mp4', 'max-age=3600', now() - interval '1 minute');
select is((select array_agg(e) from storage.expire_resumable_uploads() e), array['aaaaaaaa-0000-4000-8000-000000000009'::uuid],
  'expired uploads are taken off the books and named');
select is((select array_agg(k order by k) from storage.orphaned_versions(array[
  'aaaaaaaa-0000-4000-8000-000000000001', 'bbbbbbbb-0000-4000-8000-000000000000', 'bbbbbbbb-0000-4000-8000-000000000000.part']) k),
  array['bbbbbbbb-0000-4000-8000-000000000000', 'bbbbbbbb-0000-4000-8000-000000000000.part'],
  'bytes no object refers to are orphans; an object''s are not');

select * from finish();
rollback;
