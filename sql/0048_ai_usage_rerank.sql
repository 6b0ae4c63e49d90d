-- AI surface: the usage ledger records hosted rerank calls too (kind
-- `rerank`, provider `rerank`: the RERANK_API_URL endpoint), beside chat and
-- embedding calls. Their price is 0 unless ai.model_prices names one.
alter table ai.usage drop constraint usage_kind_check;
alter table ai.usage add constraint usage_kind_check check (kind in ('chat', 'embedding', 'rerank'));
