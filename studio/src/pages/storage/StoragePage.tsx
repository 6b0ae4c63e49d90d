// Storage (/storage, /storage/<bucket>/<folder>/...): the buckets, or one
// bucket's folder.
import { useParams } from 'react-router';
import { BucketList } from './BucketList.tsx';
import { FileBrowser } from './FileBrowser.tsx';

export default function StoragePage() {
  const params = useParams();
  const bucket = params.bucket;
  const folder = params['*'] ?? '';
  return <div className="single">{bucket ? <FileBrowser bucket={bucket} prefix={folder && !folder.endsWith('/') ? `${folder}/` : folder} /> : <BucketList />}</div>;
}
