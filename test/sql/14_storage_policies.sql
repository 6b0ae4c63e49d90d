-- A per-user folder policy, as Supabase projects write it, decides every
-- object operation; bucket rules hold whatever the caller's policies.
begin;
select plan(19);

insert into auth.users (id, aud, role, email) values
  ('11111111-1111-4111-8111-111111111111', 'authenticated', 'authenticated', 'ann@example.com'),
  ('22222222-2222-4222-8222-222222222222', 'authenticated', 'authenticated', 'bob@example.com');
insert into storage.buckets (id, name, allowed_mime_types, file_size_limit) values ('avatars', 'avatars', array['image/*'], 1000);
create policy own_folder_read on storage.objects for select to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy own_folder_write on storage.objects for insert to authenticated
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy own_folder_update on storage.objects for update to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy own_folder_delete on storage.objects for delete to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy buckets_readable on storage.buckets for select to authenticated using (true);

select tests.authenticate_as('11111111-1111-4111-8111-111111111111');
select isnt((select object_id from storage.put_object('avatars', '11111111-1111-4111-8111-111111111111/me.png', 'v1', '{"size": 10, "mimetype": "image/png"}')), null,
  'a user writes in their own folder');
select throws_ok($$select storage.put_object('avatars', '22222222-2222-4222-8222-222222222222/x.png', 'v2', '{"size": 10, "mimetype": "image/png"}')$$,
  '42501', null, 'but not in another user''s folder');
select throws_ok($$select storage.put_object('avatars', '11111111-1111-4111-8111-111111111111/me.png', 'v3', '{"size": 10, "mimetype": "image/png"}')$$,
  'PT409', 'The resource already exists', 'a second write of a name without upsert is a conflict');
select is((select replaced_version from storage.put_object('avatars', '11111111-1111-4111-8111-111111111111/me.png', 'v4', '{"size": 12, "mimetype": "image/png"}', true)),
  'v1', 'an upsert replaces the row and hands back the old byte key');
select throws_ok($$select storage.put_object('avatars', '11111111-1111-4111-8111-111111111111/big.png', 'v5', '{"size": 5000, "mimetype": "image/png"}')$$,
  'PT413', 'The object exceeded the maximum allowed size', 'the bucket''s size limit holds');
select throws_ok($$select storage.put_object('avatars', '11111111-1111-4111-8111-111111111111/page.html', 'v6', '{"size": 10, "mimetype": "text/html"}')$$,
  'PT415', 'mime type text/html is not supported', 'and its allow-list');
select throws_ok($$select storage.put_object('nowhere', 'a.png', 'v7', '{"size": 1, "mimetype": "image/png"}')$$,
  'PT404', 'Bucket not found', 'an unknown bucket is not found');
select is((select count(*)::int from storage.list_objects('avatars', '11111111-1111-4111-8111-111111111111')), 1, 'the owner lists their file');

select lives_ok($$select storage.can_upload('avatars', '11111111-1111-4111-8111-111111111111/later.png')$$,
  'a signed upload may be minted for the own folder');
select is((select count(*)::int from storage.objects where name like '%/later.png'), 0, 'and that check writes nothing');

select tests.authenticate_as('22222222-2222-4222-8222-222222222222');
select throws_ok($$select storage.can_upload('avatars', '11111111-1111-4111-8111-111111111111/later.png')$$,
  '42501', null, 'but not for another user''s folder');
select is((select count(*)::int from storage.list_objects('avatars', '11111111-1111-4111-8111-111111111111')), 0, 'another user lists nothing there');
select is((select count(*)::int from storage.remove_objects('avatars', array['11111111-1111-4111-8111-111111111111/me.png'])), 0,
  'nor removes it');
select throws_ok($$select storage.delete_bucket('avatars')$$, 'PT409', 'The bucket you tried to delete is not empty',
  'a bucket with objects, even unseen ones, is not deleted');

select tests.authenticate_as('11111111-1111-4111-8111-111111111111');
select is((select count(*)::int from storage.list_objects('avatars', '')), 1, 'at the top, the user''s folder is one entry');
select is((select id from storage.list_objects('avatars', '')), null, 'a folder entry has no id');
select is((select count(*)::int from storage.remove_objects('avatars', array['11111111-1111-4111-8111-111111111111/me.png'])), 1,
  'the owner removes the file');

select tests.clear_authentication();
select throws_ok($$insert into storage.buckets (id, name) values ('Not Valid', 'x')$$, 'PT400', null,
  'bucket ids are checked however a bucket is written');
select throws_ok($$insert into storage.buckets (id, name) values ('list', 'list')$$, 'PT400', 'Bucket id list is reserved',
  'a route word is not a bucket id');

select * from finish();
rollback;
