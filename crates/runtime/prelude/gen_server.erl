%% gen_server: the generic server behaviour, written from OTP 25's
%% documentation. The messages are OTP's: {'$gen_call', From, Request},
%% {'$gen_cast', Request}, {system, From, Request} for sys, and replies
%% through gen:reply/2. A server whose callback fails (or that stops with a
%% reason other than normal, shutdown or {shutdown, _}) logs OTP's
%% "Generic server ... terminating" error report before it exits.
-module(gen_server).
-export([start/3, start/4, start_link/3, start_link/4, start_monitor/3,
         start_monitor/4, stop/1, stop/3, call/2, call/3, cast/2, reply/2,
         abcast/2, abcast/3, multi_call/2, multi_call/3, multi_call/4,
         enter_loop/3, enter_loop/4, enter_loop/5, send_request/2,
         wait_response/2, receive_response/2, check_response/2]).
-export([init_it/6, wake_hib/6, system_continue/3, system_terminate/4,
         system_code_change/4, system_get_state/1, system_replace_state/2,
         format_status/2, format_log/1, format_log/2]).

%%% Starting

start(Mod, Args, Options) ->
    gen:start(?MODULE, nolink, Mod, Args, Options).
start(Name, Mod, Args, Options) ->
    gen:start(?MODULE, nolink, Name, Mod, Args, Options).

start_link(Mod, Args, Options) ->
    gen:start(?MODULE, link, Mod, Args, Options).
start_link(Name, Mod, Args, Options) ->
    gen:start(?MODULE, link, Name, Mod, Args, Options).

start_monitor(Mod, Args, Options) ->
    gen:start(?MODULE, monitor, Mod, Args, Options).
start_monitor(Name, Mod, Args, Options) ->
    gen:start(?MODULE, monitor, Name, Mod, Args, Options).

stop(Server) -> gen:stop(Server).
stop(Server, Reason, Timeout) -> gen:stop(Server, Reason, Timeout).

%%% Requests

%% As in OTP, any failure of the call (an error too) becomes the exit.
call(Server, Request) ->
    case catch gen:call(Server, '$gen_call', Request) of
        {ok, Reply} -> Reply;
        {'EXIT', Reason} -> exit({Reason, {?MODULE, call, [Server, Request]}})
    end.

call(Server, Request, Timeout) ->
    case catch gen:call(Server, '$gen_call', Request, Timeout) of
        {ok, Reply} -> Reply;
        {'EXIT', Reason} ->
            exit({Reason, {?MODULE, call, [Server, Request, Timeout]}})
    end.

cast({global, Name}, Request) ->
    try global:send(Name, {'$gen_cast', Request}) of _ -> ok
    catch _:_ -> ok
    end;
cast({via, Mod, Name}, Request) ->
    try Mod:send(Name, {'$gen_cast', Request}) of _ -> ok
    catch _:_ -> ok
    end;
cast({Name, Node} = Dest, Request) when is_atom(Name), is_atom(Node) ->
    send_quietly(Dest, {'$gen_cast', Request});
cast(Dest, Request) when is_atom(Dest); is_pid(Dest) ->
    send_quietly(Dest, {'$gen_cast', Request}).

send_quietly(Dest, Msg) ->
    try erlang:send(Dest, Msg) of _ -> ok
    catch error:_ -> ok
    end.

reply(From, Reply) -> gen:reply(From, Reply).

abcast(Name, Request) when is_atom(Name) ->
    abcast([node()], Name, Request).
abcast(Nodes, Name, Request) when is_list(Nodes), is_atom(Name) ->
    lists:foreach(fun(Node) ->
                          local_node(Node, abcast),
                          send_quietly({Name, Node}, {'$gen_cast', Request})
                  end, Nodes),
    abcast.

multi_call(Name, Request) when is_atom(Name) ->
    multi_call([node()], Name, Request, infinity).
multi_call(Nodes, Name, Request) when is_list(Nodes), is_atom(Name) ->
    multi_call(Nodes, Name, Request, infinity).
multi_call(Nodes, Name, Request, Timeout)
  when is_list(Nodes), is_atom(Name),
       Timeout =:= infinity orelse is_integer(Timeout) andalso Timeout >= 0 ->
    lists:foldr(fun(Node, {Replies, Bad}) ->
                        local_node(Node, multi_call),
                        case multi_call_one(Node, Name, Request, Timeout) of
                            {ok, Reply} -> {[{Node, Reply} | Replies], Bad};
                            error -> {Replies, [Node | Bad]}
                        end
                end, {[], []}, Nodes).

multi_call_one(Node, Name, Request, Timeout) ->
    Tag = make_ref(),
    Mref = erlang:monitor(process, {Name, Node}),
    {Name, Node} ! {'$gen_call', {self(), {Tag, Node}}, Request},
    receive
        {{Tag, Node}, Reply} ->
            erlang:demonitor(Mref, [flush]),
            {ok, Reply};
        {'DOWN', Mref, _, _, _} ->
            error
    after Timeout ->
            erlang:demonitor(Mref, [flush]),
            error
    end.

local_node(Node, _) when Node =:= node() -> ok;
local_node(Node, What) ->
    trace_prelude:unsupported(
      io_lib:format("gen_server:~tw to another node (~tw)", [What, Node])).

send_request(Server, Request) ->
    gen:send_request(Server, '$gen_call', Request).
wait_response(RequestId, Timeout) -> gen:wait_response(RequestId, Timeout).
receive_response(RequestId, Timeout) ->
    gen:receive_response(RequestId, Timeout).
check_response(Msg, RequestId) -> gen:check_response(Msg, RequestId).

%%% Becoming a server

enter_loop(Mod, Options, State) ->
    enter_loop(Mod, Options, State, self(), infinity).

enter_loop(Mod, Options, State, {Scope, _} = ServerName)
  when Scope =:= local; Scope =:= global ->
    enter_loop(Mod, Options, State, ServerName, infinity);
enter_loop(Mod, Options, State, {via, _, _} = ServerName) ->
    enter_loop(Mod, Options, State, ServerName, infinity);
enter_loop(Mod, Options, State, Timeout) ->
    enter_loop(Mod, Options, State, self(), Timeout).

enter_loop(Mod, Options, State, ServerName, Timeout) ->
    Name = gen:get_proc_name(ServerName),
    Parent = gen:get_parent(),
    loop(Parent, Name, State, Mod, Timeout, gen:hibernate_after(Options)).

init_it(Starter, self, Name, Mod, Args, Options) ->
    init_it(Starter, self(), Name, Mod, Args, Options);
init_it(Starter, Parent, Name0, Mod, Args, Options) ->
    Name = gen:name(Name0),
    HibernateAfter = gen:hibernate_after(Options),
    case init_callback(Mod, Args) of
        {ok, {ok, State}} ->
            proc_lib:init_ack(Starter, {ok, self()}),
            loop(Parent, Name, State, Mod, infinity, HibernateAfter);
        {ok, {ok, State, Timeout}} ->
            proc_lib:init_ack(Starter, {ok, self()}),
            loop(Parent, Name, State, Mod, Timeout, HibernateAfter);
        {ok, {stop, Reason}} ->
            gen:unregister_name(Name0),
            proc_lib:init_ack(Starter, {error, Reason}),
            exit(Reason);
        {ok, ignore} ->
            gen:unregister_name(Name0),
            proc_lib:init_ack(Starter, ignore),
            exit(normal);
        {ok, Else} ->
            Error = {bad_return_value, Else},
            proc_lib:init_ack(Starter, {error, Error}),
            exit(Error);
        {'EXIT', Class, Reason, Stack} ->
            gen:unregister_name(Name0),
            proc_lib:init_ack(Starter,
                              {error, terminate_reason(Class, Reason, Stack)}),
            erlang:raise(Class, Reason, Stack)
    end.

init_callback(Mod, Args) ->
    try {ok, Mod:init(Args)}
    catch
        throw:R -> {ok, R};
        Class:R:Stack -> {'EXIT', Class, R, Stack}
    end.

%%% The loop

loop(Parent, Name, State, Mod, {continue, Continue} = Msg, HibernateAfter) ->
    Reply = try_dispatch(Mod, handle_continue, Continue, State),
    handle_common_reply(Reply, Parent, Name, undefined, Msg, Mod,
                        HibernateAfter, State);
loop(Parent, Name, State, Mod, hibernate, HibernateAfter) ->
    proc_lib:hibernate(?MODULE, wake_hib,
                       [Parent, Name, State, Mod, HibernateAfter, []]);
loop(Parent, Name, State, Mod, infinity, HibernateAfter) ->
    receive
        Msg ->
            decode_msg(Msg, Parent, Name, State, Mod, infinity,
                       HibernateAfter, false)
    after HibernateAfter ->
            loop(Parent, Name, State, Mod, hibernate, HibernateAfter)
    end;
loop(Parent, Name, State, Mod, Time, HibernateAfter) ->
    Msg = receive
              Input -> Input
          after Time -> timeout
          end,
    decode_msg(Msg, Parent, Name, State, Mod, Time, HibernateAfter, false).

wake_hib(Parent, Name, State, Mod, HibernateAfter, _Debug) ->
    Msg = receive Input -> Input end,
    decode_msg(Msg, Parent, Name, State, Mod, hibernate, HibernateAfter, true).

decode_msg(Msg, Parent, Name, State, Mod, Time, HibernateAfter, Hib) ->
    case Msg of
        {system, From, Req} ->
            sys:handle_system_msg(Req, From, Parent, ?MODULE, [],
                                  [Name, State, Mod, Time, HibernateAfter],
                                  Hib);
        {'EXIT', Parent, Reason} ->
            terminate(exit, Reason, [], Name, undefined, Msg, Mod, State);
        _ ->
            handle_msg(Msg, Parent, Name, State, Mod, HibernateAfter)
    end.

handle_msg({'$gen_call', From, Request}, Parent, Name, State, Mod,
           HibernateAfter) ->
    %% Reports name the request as the last message, as OTP's do.
    Msg = Request,
    case try_handle_call(Mod, Request, From, State) of
        {ok, {reply, Reply, NState}} ->
            reply(From, Reply),
            loop(Parent, Name, NState, Mod, infinity, HibernateAfter);
        {ok, {reply, Reply, NState, Time}} ->
            reply(From, Reply),
            loop(Parent, Name, NState, Mod, Time, HibernateAfter);
        {ok, {stop, Reason, Reply, NState}} ->
            %% The reply goes out after terminate/2 ran, as the server ends.
            try
                terminate(exit, Reason, [], Name, From, Msg, Mod, NState)
            after
                reply(From, Reply)
            end;
        Other ->
            handle_common_reply(Other, Parent, Name, From, Msg, Mod,
                                HibernateAfter, State)
    end;
handle_msg({'$gen_cast', Request} = Msg, Parent, Name, State, Mod,
           HibernateAfter) ->
    Reply = try_dispatch(Mod, handle_cast, Request, State),
    handle_common_reply(Reply, Parent, Name, undefined, Msg, Mod,
                        HibernateAfter, State);
handle_msg(Msg, Parent, Name, State, Mod, HibernateAfter) ->
    Reply = try_dispatch(Mod, handle_info, Msg, State),
    handle_common_reply(Reply, Parent, Name, undefined, Msg, Mod,
                        HibernateAfter, State).

try_handle_call(Mod, Request, From, State) ->
    try {ok, Mod:handle_call(Request, From, State)}
    catch
        throw:R -> {ok, R};
        Class:R:Stack -> {'EXIT', Class, R, Stack}
    end.

try_dispatch(Mod, Func, Msg, State) ->
    try {ok, Mod:Func(Msg, State)}
    catch
        throw:R -> {ok, R};
        error:undef = R:Stack when Func =:= handle_info ->
            case erlang:function_exported(Mod, handle_info, 2) of
                false ->
                    logger:warning(
                      #{label => {gen_server, no_handle_info},
                        module => Mod, message => Msg},
                      #{domain => [otp],
                        report_cb => fun gen_server:format_log/2,
                        error_logger => #{tag => warning_msg}}),
                    {ok, {noreply, State}};
                true ->
                    {'EXIT', error, R, Stack}
            end;
        Class:R:Stack -> {'EXIT', Class, R, Stack}
    end.

handle_common_reply(Reply, Parent, Name, From, Msg, Mod, HibernateAfter,
                    State) ->
    case Reply of
        {ok, {noreply, NState}} ->
            loop(Parent, Name, NState, Mod, infinity, HibernateAfter);
        {ok, {noreply, NState, Time}} ->
            loop(Parent, Name, NState, Mod, Time, HibernateAfter);
        {ok, {stop, Reason, NState}} ->
            terminate(exit, Reason, [], Name, From, Msg, Mod, NState);
        {'EXIT', Class, Reason, Stack} ->
            terminate(Class, Reason, Stack, Name, From, Msg, Mod, State);
        {ok, BadReply} ->
            terminate(exit, {bad_return_value, BadReply}, [], Name, From,
                      Msg, Mod, State)
    end.

%%% The end

terminate(Class, Reason, Stack, Name, From, Msg, Mod, State) ->
    case try_terminate(Mod, terminate_reason(Class, Reason, Stack), State) of
        {'EXIT', C, R, S} ->
            error_info(terminate_reason(C, R, S), Name, From, Msg, Mod, State),
            erlang:raise(C, R, S);
        _ ->
            case {Class, Reason} of
                {exit, normal} -> ok;
                {exit, shutdown} -> ok;
                {exit, {shutdown, _}} -> ok;
                _ ->
                    error_info(terminate_reason(Class, Reason, Stack), Name,
                               From, Msg, Mod, State)
            end,
            erlang:raise(Class, Reason, Stack)
    end.

terminate_reason(error, Reason, Stack) -> {Reason, Stack};
terminate_reason(exit, Reason, _Stack) -> Reason;
terminate_reason(throw, Reason, Stack) -> {{nocatch, Reason}, Stack}.

try_terminate(Mod, Reason, State) ->
    case erlang:function_exported(Mod, terminate, 2) of
        true ->
            try {ok, Mod:terminate(Reason, State)}
            catch
                throw:R -> {ok, R};
                Class:R:Stack -> {'EXIT', Class, R, Stack}
            end;
        false ->
            {ok, ok}
    end.

error_info(Reason, Name, From, Msg, Mod, State) ->
    logger:error(#{label => {gen_server, terminate},
                   name => Name,
                   last_message => Msg,
                   state => format_state(terminate, Mod, State, Reason),
                   log => [],
                   reason => Reason,
                   client_info => client_info(From)},
                 #{domain => [otp],
                   report_cb => fun gen_server:format_log/2,
                   error_logger => #{tag => error}}).

client_info({Pid, _Tag}) when is_pid(Pid) -> {Pid, alive_or_dead(Pid)};
client_info(_) -> undefined.

alive_or_dead(Pid) ->
    case is_process_alive(Pid) of
        true -> alive;
        false -> dead
    end.

%% The state a report or sys:get_status/1 shows: what the callback module's
%% format_status/1 (or the older format_status/2) makes of it.
format_state(Opt, Mod, State, Reason) ->
    case erlang:function_exported(Mod, format_status, 1) of
        true ->
            Status = case Opt of
                         terminate -> #{state => State, reason => Reason,
                                        log => []};
                         normal -> #{state => State, log => []}
                     end,
            try Mod:format_status(Status) of
                #{state := S} -> S;
                _ -> State
            catch _:_ -> State
            end;
        false ->
            case erlang:function_exported(Mod, format_status, 2) of
                true ->
                    try Mod:format_status(Opt, [get(), State])
                    catch _:_ -> State
                    end;
                false -> State
            end
    end.

format_log(Report) ->
    {"~ts", [format_log(Report, #{})]}.

format_log(#{label := {gen_server, terminate}, name := Name,
             last_message := Msg, state := State, reason := Reason} = R,
           _Config) ->
    [io_lib:format("** Generic server ~tp terminating \n"
                   "** Last message in was ~tp~n"
                   "** When Server state == ~tp~n"
                   "** Reason for termination ==~n** ~tp~n",
                   [Name, Msg, State, Reason]),
     case maps:get(client_info, R, undefined) of
         {Pid, dead} -> io_lib:format("** Client ~tp is dead~n", [Pid]);
         _ -> ""
     end];
format_log(#{label := {gen_server, no_handle_info}, module := Mod,
             message := Msg}, _Config) ->
    io_lib:format("** Undefined handle_info in ~p~n"
                  "** Unhandled message: ~tp~n", [Mod, Msg]).

%%% sys callbacks

system_continue(Parent, _Debug, [Name, State, Mod, Time, HibernateAfter]) ->
    loop(Parent, Name, State, Mod, Time, HibernateAfter).

system_terminate(Reason, _Parent, _Debug, [Name, State, Mod, _Time, _HA]) ->
    terminate(exit, Reason, [], Name, undefined, [], Mod, State).

system_code_change([Name, State, Mod, Time, HibernateAfter], _Module, OldVsn,
                   Extra) ->
    case catch Mod:code_change(OldVsn, State, Extra) of
        {ok, NewState} -> {ok, [Name, NewState, Mod, Time, HibernateAfter]};
        Else -> Else
    end.

system_get_state([_Name, State, _Mod, _Time, _HibernateAfter]) ->
    {ok, State}.

system_replace_state(StateFun, [Name, State, Mod, Time, HibernateAfter]) ->
    NState = StateFun(State),
    {ok, NState, [Name, NState, Mod, Time, HibernateAfter]}.

format_status(Opt, [PDict, SysState, Parent, _Debug,
                    [Name, State, Mod, _Time, _HibernateAfter]]) ->
    Header = gen:format_status_header("Status for generic server", Name),
    Specific =
        case erlang:function_exported(Mod, format_status, 2)
            andalso not erlang:function_exported(Mod, format_status, 1) of
            true ->
                case catch Mod:format_status(Opt, [PDict, State]) of
                    {'EXIT', _} -> [{data, [{"State", State}]}];
                    L when is_list(L) -> L;
                    T -> [T]
                end;
            false ->
                [{data, [{"State", format_state(normal, Mod, State, normal)}]}]
        end,
    [{header, Header},
     {data, [{"Status", SysState}, {"Parent", Parent},
             {"Logged events", []}]}
     | Specific].
