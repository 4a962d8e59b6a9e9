-- script: item_prelude collection_prelude leaderboard_prelude
-- GetRank and GetCompetitionRank. ARGV[1]: 'a' or 'd'; ARGV[2]: 'p' for
-- ranks by position, 'c' for competition ranks (the number of elements
-- scored strictly ahead); ARGV[3..]: the members asked for. Returns the
-- flat {member, rank, score, ...} of those the board holds, in the order
-- asked ({} for a missing board).
if open('leaderboard') == 'missing' then
  return {}
end
local descending = ARGV[1] == 'd'
local competition = ARGV[2] == 'c'
local answer = {}
for i = 3, #ARGV do
  local member = ARGV[i]
  local score = redis.call('ZSCORE', KEYS[3], member)
  if score then
    local rank
    if competition and descending then
      rank = redis.call('ZCOUNT', KEYS[3], '(' .. score, '+inf')
    elseif competition then
      rank = redis.call('ZCOUNT', KEYS[3], '-inf', '(' .. score)
    elseif descending then
      rank = redis.call('ZREVRANK', KEYS[3], member)
    else
      rank = redis.call('ZRANK', KEYS[3], member)
    end
    answer[#answer + 1] = member
    answer[#answer + 1] = rank
    answer[#answer + 1] = score
  end
end
return answer
