-- Supabase's path helpers, the allow-list and the object-name rules.
begin;
select plan(14);

select is(storage.foldername('a/b/c.png'), array['a', 'b'], 'foldername lists the folders of a path');
select is(storage.foldername('c.png'), array[]::text[], 'a top-level name has no folders');
select is(storage.filename('a/b/c.png'), 'c.png', 'filename is the last segment');
select is(storage.extension('a/b/c.tar.gz'), 'gz', 'extension is what follows the last dot of the file name');
select is(storage.extension('a.b/readme'), '', 'a dot in a folder is not an extension');

select ok(storage.mime_allowed(null, 'text/html'), 'no allow-list allows any type');
select ok(storage.mime_allowed(array['image/*'], 'image/png'), 'a wildcard allows its family');
select ok(not storage.mime_allowed(array['image/*'], 'text/html'), 'and nothing else');
select ok(storage.mime_allowed(array['application/pdf'], 'Application/PDF; charset=binary'), 'types compare without case and parameters');

select ok(storage.valid_object_name('user/1/photo 1.png'), 'spaces and slashes are fine');
select ok(not storage.valid_object_name('a/../b'), 'a .. segment is refused');
select ok(not storage.valid_object_name('/abs'), 'a leading slash is refused');
select ok(not storage.valid_object_name(E'a\nb'), 'control characters are refused');
select ok(not storage.valid_object_name(repeat('x', 1025)), 'over 1024 bytes is refused');

select * from finish();
rollback;
